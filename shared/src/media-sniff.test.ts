import { describe, expect, it } from 'vitest';
import { mp4Bytes, wavBytes } from './testing/media-bytes.ts';
import { sniffMedia } from './media-sniff.ts';

const id3Mp3 = () => Buffer.concat([Buffer.from('ID3'), Buffer.from([4, 0, 0, 0, 0, 0, 0]), Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(400)]);
const flac = () => Buffer.concat([Buffer.from('fLaC'), Buffer.from([0, 0, 0, 34]), Buffer.alloc(34)]);
const png = () =>
  Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.from([0, 0, 0, 13]),
    Buffer.from('IHDR'),
    Buffer.from([0, 0, 0, 16, 0, 0, 0, 16, 8, 2, 0, 0, 0]),
    Buffer.from([0x90, 0x91, 0x68, 0x36]),
    Buffer.from([0, 0, 0, 0]),
    Buffer.from('IEND'),
    Buffer.from([0xae, 0x42, 0x60, 0x82]),
  ]);
/** Deterministic noise (no signature at its start). */
const noise = () => Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 1103515245 + 12345) % 251));

describe('sniffMedia', () => {
  it('takes the containers callers upload', async () => {
    expect(await sniffMedia(wavBytes())).toMatchObject({ isMedia: true, mime: expect.stringMatching(/wav/) });
    expect(await sniffMedia(mp4Bytes())).toMatchObject({ isMedia: true, mime: 'video/mp4' });
    expect(await sniffMedia(id3Mp3())).toMatchObject({ isMedia: true, mime: 'audio/mpeg' });
    expect(await sniffMedia(flac())).toMatchObject({ isMedia: true, mime: expect.stringMatching(/flac/) });
  });

  it('refuses text, images, documents and bytes it cannot name, saying what they look like', async () => {
    expect(await sniffMedia(Buffer.from('Meeting notes\n- buy milk\n- call Ana at 10:30\n'))).toEqual({ isMedia: false, looksLike: 'text', kind: 'text' });
    expect(await sniffMedia(png())).toEqual({ isMedia: false, looksLike: 'a .png file (image/png)', kind: 'image' });
    expect(await sniffMedia(Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n'))).toMatchObject({
      isMedia: false,
      looksLike: expect.stringContaining('pdf'),
      kind: 'document',
    });
    expect(await sniffMedia(noise())).toEqual({ isMedia: false, looksLike: 'in no format we know', kind: 'other' });
    // The page of a video rather than its file (a media URL's most common mistake).
    expect(await sniffMedia(Buffer.from('<!DOCTYPE html>\n<html><head><title>My talk</title></head>'))).toEqual({
      isMedia: false,
      looksLike: 'a web page (HTML)',
      kind: 'web_page',
    });
    expect(await sniffMedia(Buffer.from([0x50, 0x4b, 0x03, 0x04, ...Buffer.alloc(60)]))).toMatchObject({ isMedia: false, kind: 'archive' });
    expect(await sniffMedia(Buffer.alloc(0))).toMatchObject({ isMedia: false });
  });
});
