import { describe, expect, it } from 'vitest';
import { parseEncoderList, parseFfmpegVersion, parseNvidiaSmiList } from './parse-tool-output.ts';

// Captured from Debian 12's ffmpeg 5.1 (trimmed).
const ENCODERS = `Encoders:
 V..... = Video
 A..... = Audio
 S..... = Subtitle
 .F.... = Frame-level multithreading
 ..S... = Slice-level multithreading
 ...X.. = Codec is experimental
 ....B. = Supports draw_horiz_band
 .....D = Supports direct rendering method 1
 ------
 V....D a64multi             Multicolor charset for Commodore 64 (codec a64_multi)
 V....D libx264              libx264 H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10 (codec h264)
 V....D h264_nvenc           NVIDIA NVENC H.264 encoder (codec h264)
 VFS..D ffv1                 FFmpeg video codec #1
 A....D aac                  AAC (Advanced Audio Coding)
 A..X.D opus                 Opus
 A....D pcm_s16le            PCM signed 16-bit little-endian
 S..... srt                  SubRip subtitle
`;

describe('parseEncoderList', () => {
  it('returns encoder names after the rule, not the legend', () => {
    expect(parseEncoderList(ENCODERS)).toEqual(['a64multi', 'libx264', 'h264_nvenc', 'ffv1', 'aac', 'opus', 'pcm_s16le', 'srt']);
  });
  it('is empty for unrelated text', () => {
    expect(parseEncoderList('ffmpeg: command not found')).toEqual([]);
  });
});

describe('parseFfmpegVersion', () => {
  it('reads Debian and git-tag versions', () => {
    expect(parseFfmpegVersion('ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026 the FFmpeg developers\nbuilt with gcc 12')).toBe('5.1.9-0+deb12u1');
    expect(parseFfmpegVersion('ffmpeg version n7.1 Copyright (c) 2000-2024')).toBe('n7.1');
    expect(parseFfmpegVersion('nope')).toBeNull();
  });
});

describe('parseNvidiaSmiList', () => {
  it('names each GPU without its UUID', () => {
    const out = 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1b2c3d4e-0000-1111-2222-333344445555)\nGPU 1: NVIDIA L4 (UUID: GPU-aa)\n';
    expect(parseNvidiaSmiList(out)).toEqual(['NVIDIA H100 80GB HBM3', 'NVIDIA L4']);
  });
  it('ignores MIG lines and errors', () => {
    const out = 'GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-x)\n  MIG 1g.5gb Device 0: (UUID: MIG-y)\nNVIDIA-SMI has failed';
    expect(parseNvidiaSmiList(out)).toEqual(['NVIDIA A100-SXM4-40GB']);
  });
});
