import { describe, expect, it } from 'vitest';
import { PipelineError } from '../errors.ts';
import { createTranscriptCollector } from './transcript-collector.ts';

const seg = { type: 'segment' as const, id: 0, start: 0, end: 1, text: 'Hi.', words: [{ start: 0, end: 1, word: 'Hi.', probability: 0.9 }] };

describe('createTranscriptCollector', () => {
  it('builds a valid TranscriptV2', () => {
    const c = createTranscriptCollector();
    c.add({ type: 'info', language: 'en', duration: 1.5 });
    c.add(seg);
    c.add({ type: 'progress', fraction: 1 });
    c.add({ type: 'done' });
    expect(c.finish()).toEqual({ version: 2, language: 'en', duration: 1.5, segments: [{ id: 0, start: 0, end: 1, text: 'Hi.', words: seg.words }] });
  });

  it('turns a child error into a classified failure', () => {
    const c = createTranscriptCollector();
    c.add({ type: 'error', code: 'audio_invalid', message: 'Invalid data found' });
    expect(() => c.finish()).toThrow(PipelineError);
    expect(c.failure()).toMatchObject({
      code: 'media_invalid',
      message: 'the audio could not be decoded: Invalid data found',
      detail: { code: 'undecodable', params: { step: 'transcription' } },
    });
    const m = createTranscriptCollector();
    m.add({ type: 'error', code: 'model_unavailable', message: 'offline' });
    expect(m.failure()).toMatchObject({ code: 'tool_failed', detail: undefined });
  });

  it('refuses a stream that never said done', () => {
    const c = createTranscriptCollector();
    c.add({ type: 'info', language: 'en', duration: 1 });
    expect(() => c.finish()).toThrow(/without a done line/);
  });
});
