import { describe, expect, it } from 'vitest';
import { loadAgentConfig } from './config.ts';

const required = { COORDINATOR_URL: 'http://127.0.0.1:8080', AGENT_TOKEN: 't0ken', NATS_URL: 'nats://127.0.0.1:4222' };

describe('loadAgentConfig', () => {
  it('applies defaults for everything optional', () => {
    const c = loadAgentConfig(required);
    expect(c.whisper).toEqual({ model: 'tiny.en', device: 'auto', computeType: 'auto', beamSize: 5, allowDownload: false });
    expect(c.ffmpegPath).toBe('ffmpeg');
    expect(c.python).toMatch(/\.venv\/bin\/python$/);
    expect(c.agentId).toMatch(/-\d+$/);
    expect(c.logLevel).toBe('info');
  });

  it('names every missing required key', () => {
    expect(() => loadAgentConfig({})).toThrow(/COORDINATOR_URL[\s\S]*AGENT_TOKEN[\s\S]*NATS_URL/);
  });

  it('treats empty strings as unset and parses typed values', () => {
    const c = loadAgentConfig({ ...required, WHISPER_MODEL: '', WHISPER_BEAM_SIZE: '2', WHISPER_ALLOW_DOWNLOAD: 'true', WHISPER_DEVICE: 'cpu' });
    expect(c.whisper).toMatchObject({ model: 'tiny.en', beamSize: 2, allowDownload: true, device: 'cpu' });
  });

  it('rejects a bad enum value', () => {
    expect(() => loadAgentConfig({ ...required, WHISPER_DEVICE: 'tpu' })).toThrow(/WHISPER_DEVICE/);
  });
});
