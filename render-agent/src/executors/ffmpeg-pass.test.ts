import { describe, expect, it } from 'vitest';
import { classifyPassFailure, errorLines, ffmpegSeconds } from './ffmpeg-pass.ts';

const SRC = '/tmp/cutroom-agent/0b1c/source';
const OUT = '/tmp/cutroom-agent/0b1c/clip.mp4';
const o = { step: 'encoding_vertical_clip' as const, names: { [SRC]: 'source', [OUT]: 'clip.mp4' }, outputs: [OUT] };
const failed = (stderr: string, exitCode: number | undefined = 1) => classifyPassFailure({ stderr, exitCode, code: undefined, signal: undefined }, o);

describe('ffmpegSeconds', () => {
  it('writes fixed-point seconds, never exponents', () => {
    expect(ffmpegSeconds(1e-7)).toBe('0.000000');
    expect(ffmpegSeconds(61.2)).toBe('61.200000');
  });
});

describe('errorLines', () => {
  it('keeps error lines without their source tag, dropping "Conversion failed!"', () => {
    const stderr = '[info] Stream mapping:\n[h264 @ 0x55aa] [error] Invalid NAL unit size\n[error] Conversion failed!\n';
    expect(errorLines(stderr)).toEqual(['Invalid NAL unit size']);
  });
});

describe('classifyPassFailure', () => {
  it('blames a source that does not decode on the caller, without local paths', () => {
    const err = failed(`[error] file:${SRC}: Invalid data found when processing input\n`);
    expect(err.code).toBe('media_invalid');
    expect(err.message).toContain('source: Invalid data found');
    expect(err.message).not.toContain('/tmp');
    // ffmpeg's line is the log's; the caller reads the step's sentence.
    expect(err.detail).toEqual({ code: 'undecodable', params: { step: 'encoding_vertical_clip' } });
  });

  it('blames the filter graph, the encoder and the output on us', () => {
    expect(failed('[Parsed_crop_0 @ 0x1] [error] Invalid too big or non positive size for width 700\n[error] Error reinitializing filters!\n').code).toBe(
      'tool_failed',
    );
    expect(failed('[h264_nvenc @ 0x1] [error] OpenEncodeSessionEx failed: out of memory\n').code).toBe('tool_failed');
    const out = failed(`[error] file:${OUT}: No space left on device\n`);
    expect(out.code).toBe('tool_failed');
    expect(out.message).toBe('ffmpeg failed while encoding the vertical clip: clip.mp4: No space left on device');
  });

  it('blames a killed or missing tool on us', () => {
    expect(classifyPassFailure({ stderr: '', exitCode: undefined, code: 'ENOENT', signal: undefined }, o).message).toContain('ENOENT');
  });

  it('names refused formats and protocols for the caller', () => {
    expect(failed('[error] Format not on whitelist\n')).toMatchObject({
      message: expect.stringMatching(/not in an accepted format/),
      detail: { code: 'format_refused' },
    });
    expect(failed("[error] Protocol 'http' not on whitelist 'file'!\n")).toMatchObject({
      message: 'the source refers to other files or URLs, which are not read',
      detail: { code: 'refers_to_other_files', params: { input: 'source' } },
    });
  });
});
