import { describe, expect, it } from 'vitest';
import { classifyFailure, PipelineError, storableMessage } from './errors.ts';

describe('failure messages', () => {
  it('drops NUL bytes and broken UTF-16 the coordinator could not store, and caps the length', () => {
    expect(storableMessage('ffmpeg: bad\u0000 data \ud800 here')).toBe('ffmpeg: bad data \ufffd here');
    expect(storableMessage(`${'x'.repeat(1999)}\ud83d\ude00`)).toHaveLength(2000);
    expect(storableMessage(`${'x'.repeat(1999)}\ud83d\ude00`).isWellFormed()).toBe(true);
  });

  it('keeps a pipeline error’s code and hides nothing the caller needs', () => {
    expect(classifyFailure(new PipelineError('media_no_audio', 'no audio\u0000'))).toEqual({ code: 'media_no_audio', message: 'no audio' });
    expect(classifyFailure(new Error('boom'))).toEqual({ code: 'internal', message: 'render-agent internal error: boom' });
  });
});
