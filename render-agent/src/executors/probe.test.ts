import { describe, expect, it } from 'vitest';
import { PipelineError } from '../errors.ts';
import { ACCEPTED_DEMUXERS, isAcceptedFormat } from './media-path.ts';
import { assertTranscribable, buildProbeArgs, parseProbeOutput } from './probe.ts';

const wav = { streams: [{ codec_type: 'audio', codec_name: 'pcm_s16le', duration: '7.100000' }], format: { format_name: 'wav', duration: '7.100000' } };
const mp4 = {
  streams: [
    { codec_type: 'video', codec_name: 'h264', duration: '7.120000', disposition: { attached_pic: 0 } },
    { codec_type: 'audio', codec_name: 'aac', duration: '7.100000' },
  ],
  format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '7.120000' },
};
const mp3WithCover = {
  streams: [
    { codec_type: 'audio', codec_name: 'mp3', duration: '3.0' },
    { codec_type: 'video', codec_name: 'mjpeg', duration: 'N/A', disposition: { attached_pic: 1 } },
  ],
  format: { format_name: 'mp3', duration: '3.0' },
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof PipelineError ? err.code : 'not-a-pipeline-error';
  }
  return undefined;
}

describe('parseProbeOutput', () => {
  it('reads audio-only and video files', () => {
    expect(parseProbeOutput(JSON.stringify(wav))).toEqual({ duration_seconds: 7.1, has_video: false, has_audio: true, format_name: 'wav' });
    expect(parseProbeOutput(JSON.stringify(mp4))).toMatchObject({ duration_seconds: 7.12, has_video: true, has_audio: true });
  });
  it('does not count cover art as video', () => {
    expect(parseProbeOutput(JSON.stringify(mp3WithCover)).has_video).toBe(false);
  });
  it('falls back to stream durations when the format has none', () => {
    const noFormatDuration = { ...wav, format: { format_name: 'aac' } };
    expect(parseProbeOutput(JSON.stringify(noFormatDuration)).duration_seconds).toBe(7.1);
  });
  it('classifies empty or garbage output as media_invalid', () => {
    expect(codeOf(() => parseProbeOutput('{\n\n}'))).toBe('media_invalid');
    expect(codeOf(() => parseProbeOutput('not json'))).toBe('media_invalid');
    expect(() => parseProbeOutput('not json')).toThrow(expect.objectContaining({ detail: { code: 'not_media', params: { reason: 'no_json' } } }));
    expect(() => parseProbeOutput('{}')).toThrow(expect.objectContaining({ detail: { code: 'not_media', params: { reason: 'no_streams' } } }));
  });
});

describe('the input guard', () => {
  it('probes only local files, and only with the demuxers of the accepted upload formats', () => {
    const args = buildProbeArgs('/work/a b/source');
    const input = args.indexOf('file:/work/a b/source');
    expect(input).toBe(args.length - 1);
    expect(args[args.indexOf('-protocol_whitelist') + 1]).toBe('file');
    expect(args[args.indexOf('-format_whitelist') + 1]).toBe('mp3,wav,mov,ogg,flac,matroska,aac,avi');
    expect(args.indexOf('-format_whitelist')).toBeLessThan(input);
  });

  it('accepts ffprobe format names of every accepted upload format', () => {
    // MP3, WAV, MP4/M4A/MOV, OGG/Opus, FLAC, WebM/MKV, AAC, AVI as ffprobe names them.
    for (const name of ['mp3', 'wav', 'mov,mp4,m4a,3gp,3g2,mj2', 'ogg', 'flac', 'matroska,webm', 'aac', 'avi']) expect(isAcceptedFormat(name)).toBe(true);
    for (const name of ['hls', 'concat', 'image2', 'mpegts', 'tty', 'w64', 'webm_dash_manifest', 'lavfi', '']) expect(isAcceptedFormat(name)).toBe(false);
    expect(ACCEPTED_DEMUXERS).toHaveLength(8);
  });

  it('refuses a probe result in any other format as media_invalid, naming what is accepted', () => {
    const hls = { streams: [{ codec_type: 'audio', codec_name: 'aac' }], format: { format_name: 'hls', duration: '10' } };
    expect(() => parseProbeOutput(JSON.stringify(hls))).toThrow(
      expect.objectContaining({
        code: 'media_invalid',
        message: expect.stringMatching(/\(hls\) is not in an accepted format; upload MP3, WAV, .*AVI/),
        detail: { code: 'format_refused', params: { detected: 'hls' } },
      }),
    );
    // A name the catalogue's pattern does not take is the log's, not a parameter.
    const odd = { ...hls, format: { format_name: 'HLS <see https://evil.example>' } };
    expect(() => parseProbeOutput(JSON.stringify(odd))).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/evil\.example/), detail: { code: 'format_refused', params: {} } }),
    );
  });
});

describe('assertTranscribable', () => {
  it('refuses silent video and over-long media', () => {
    expect(codeOf(() => assertTranscribable({ duration_seconds: 5, has_video: true, has_audio: false, format_name: 'mp4' }))).toBe('media_no_audio');
    expect(codeOf(() => assertTranscribable({ duration_seconds: 5 * 3600, has_video: false, has_audio: true, format_name: 'wav' }))).toBe('media_too_long');
    expect(codeOf(() => assertTranscribable({ duration_seconds: 5, has_video: false, has_audio: true, format_name: 'wav' }))).toBeUndefined();
    expect(() => assertTranscribable({ duration_seconds: 5, has_video: true, has_audio: false, format_name: 'mp4' })).toThrow(
      expect.objectContaining({ detail: { code: 'no_audio', params: { has_video: true } } }),
    );
    expect(() => assertTranscribable({ duration_seconds: 5 * 3600, has_video: false, has_audio: true, format_name: 'wav' })).toThrow(
      expect.objectContaining({ message: 'the media is 5.0 h long; the limit is 4 h', detail: { code: 'too_long', params: { duration_seconds: 5 * 3600 } } }),
    );
  });
});
