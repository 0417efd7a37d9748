import { describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../config.ts';
import { fasterWhisperRuns, ffmpegRuns, unmet, whisperModelAvailable, type HostFacts } from './requirements.ts';

const config = loadAgentConfig({
  COORDINATOR_URL: 'http://127.0.0.1:8080',
  AGENT_TOKEN: 't',
  NATS_URL: 'nats://127.0.0.1:4222',
  FFMPEG_PATH: '/opt/ffmpeg',
  PYTHON: '/opt/py',
});
const healthy: HostFacts = {
  ffmpeg: { version: '7.1.1', encoders: ['aac', 'libx264'] },
  nvenc: false,
  cuda: { available: false, devices: [] },
  whisperModels: { isRunnable: true, models: ['tiny.en'] },
  freeDiskBytes: 10e9,
};

describe('host requirements', () => {
  it('are all met on a host with ffmpeg, faster-whisper and the configured model', () => {
    expect(unmet(ffmpegRuns, fasterWhisperRuns, whisperModelAvailable)(healthy, config)).toEqual([]);
  });

  it('say which ffmpeg does not run, and why', () => {
    const host = { ...healthy, ffmpeg: { version: null, encoders: [], error: 'spawn /opt/ffmpeg ENOENT' } };
    expect(ffmpegRuns(host, config)).toBe('ffmpeg at /opt/ffmpeg does not run: spawn /opt/ffmpeg ENOENT');
  });

  it('report a broken faster-whisper once, not also a missing model', () => {
    const host = { ...healthy, whisperModels: { isRunnable: false, models: [], error: "No module named 'faster_whisper'" } };
    expect(unmet(fasterWhisperRuns, whisperModelAvailable)(host, config)).toEqual([
      `faster-whisper does not run with /opt/py: No module named 'faster_whisper'`,
    ]);
  });

  it('want the configured model offline, unless downloads are allowed', () => {
    const host = { ...healthy, whisperModels: { isRunnable: true, models: ['base'] } };
    expect(whisperModelAvailable(host, config)).toMatch(/Whisper model tiny\.en is not available offline .*WHISPER_ALLOW_DOWNLOAD=true/);
    expect(whisperModelAvailable(host, { ...config, whisper: { ...config.whisper, allowDownload: true } })).toBeNull();
  });
});
