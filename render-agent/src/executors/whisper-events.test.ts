import { describe, expect, it } from 'vitest';
import { createLineSplitter, parseWhisperLine } from './whisper-events.ts';

const segment = {
  type: 'segment',
  id: 0,
  start: 0,
  end: 1.2,
  text: 'Hello there.',
  words: [
    { start: 0, end: 0.5, word: 'Hello', probability: 0.9 },
    { start: 0.5, end: 1.2, word: 'there.', probability: 0.8 },
  ],
};
const stream = [{ type: 'info', language: 'en', duration: 2 }, segment, { type: 'progress', fraction: 0.6 }, { type: 'done' }]
  .map((e) => `${JSON.stringify(e)}\n`)
  .join('');

describe('createLineSplitter + parseWhisperLine', () => {
  it('yields the same events however the stream is chunked', () => {
    for (const size of [1, 3, 17, stream.length]) {
      const split = createLineSplitter();
      const lines: string[] = [];
      for (let i = 0; i < stream.length; i += size) lines.push(...split.push(stream.slice(i, i + size)));
      lines.push(...split.end());
      const types = lines.map(parseWhisperLine).map((p) => (p?.ok ? p.event.type : 'bad'));
      expect(types).toEqual(['info', 'segment', 'progress', 'done']);
    }
  });

  it('hands back a final line that had no newline', () => {
    const split = createLineSplitter();
    expect(split.push('{"type":"do')).toEqual([]);
    expect(split.end()).toEqual(['{"type":"do']);
  });

  it('explains malformed lines instead of throwing', () => {
    expect(parseWhisperLine('Traceback (most recent call last):')).toMatchObject({ ok: false, reason: 'not JSON' });
    expect(parseWhisperLine('{"type":"progress","fraction":7}')).toMatchObject({ ok: false });
    expect(parseWhisperLine('   ')).toBeNull();
  });

  it('parses error lines with their code', () => {
    const p = parseWhisperLine('{"type":"error","code":"audio_invalid","message":"bad"}');
    expect(p).toEqual({ ok: true, event: { type: 'error', code: 'audio_invalid', message: 'bad' } });
  });
});
