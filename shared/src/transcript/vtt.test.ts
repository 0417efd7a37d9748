import { describe, expect, it } from 'vitest';
import { escapeVttText, toVtt } from './vtt.ts';
import { seg, transcript } from './test-fixtures.ts';

describe('toVtt', () => {
  it('renders the header then unnumbered cues', () => {
    expect(toVtt(transcript([seg(0, 0, 1.5, ' Hello'), seg(1, 3600, 3601, 'hour')]))).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nHello\n\n01:00:00.000 --> 01:00:01.000\nhour\n',
    );
  });

  it('is only the header for an empty transcript', () => {
    expect(toVtt(transcript([]))).toBe('WEBVTT\n\n');
    expect(toVtt(transcript([seg(0, 0, 1, ' ')]))).toBe('WEBVTT\n\n');
  });

  it('escapes markup characters so "-->" never appears in cue text', () => {
    expect(escapeVttText('a & b <i> c --> d')).toBe('a &amp; b &lt;i&gt; c --&gt; d');
    const out = toVtt(transcript([seg(0, 0, 1, 'x --> y')]));
    const body = out.split('\n').filter((l) => l !== '' && l !== 'WEBVTT' && !/^\d\d:/u.test(l));
    expect(body).toEqual(['x --&gt; y']);
    expect(out.match(/-->/gu)).toHaveLength(1);
  });

  it('shares the SRT timing rules: collapsed text, zero-length and overlap fixed, rounding', () => {
    const out = toVtt(transcript([seg(0, 0.9995, 0.9995, 'a\nb'), seg(1, 1.2, 3, 'ünï 🎬'), seg(2, 2, 4, 'c')]));
    expect(out).toBe(
      'WEBVTT\n\n' + '00:00:01.000 --> 00:00:01.200\na b\n\n' + '00:00:01.200 --> 00:00:03.000\nünï 🎬\n\n' + '00:00:03.000 --> 00:00:04.000\nc\n',
    );
  });
});
