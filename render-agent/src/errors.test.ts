import { describe, expect, it } from 'vitest';
import { classifyFailure, hideLocalPaths, inputFailure, PipelineError, storableMessage } from './errors.ts';

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

  it('names a failure of the input by its catalogue detail: the code it accompanies, its sentence, the tool text for the log only', () => {
    const e = inputFailure({ code: 'undecodable', params: { step: 'audio_extraction' } }, { tool: 'moov atom not found' });
    expect(e).toMatchObject({ code: 'media_invalid', message: 'the audio in the uploaded file could not be decoded (moov atom not found)' });
    expect(classifyFailure(e)).toEqual({
      code: 'media_invalid',
      message: 'the audio in the uploaded file could not be decoded (moov atom not found)',
      detail: { code: 'undecodable', params: { step: 'audio_extraction' } },
    });
    expect(inputFailure({ code: 'no_audio', params: { has_video: true } }).code).toBe('media_no_audio');
    expect(inputFailure({ code: 'subject_not_found', params: { found: [] } }, { request: { subject_id: 'host' } }).message).toBe(
      'subject_id host was not found in this clip; subjects found: none (run subject=auto and read the subjects output)',
    );
    // Out of the catalogue's bounds (here a media length no upload has): the message stays, no detail is sent.
    const huge = inputFailure({ code: 'too_long', params: { duration_seconds: 1e9 } });
    expect(huge).toMatchObject({ code: 'media_too_long', detail: undefined });
    expect(classifyFailure(huge)).not.toHaveProperty('detail');
  });

  describe('hideLocalPaths', () => {
    const work = '/var/tmp/cutroom agent';
    const attempt = `${work}/0190a5a0-0000-7000-8000-000000000002`;
    const roots = [attempt, work, '/tmp'];

    it('turns work-folder paths and file: URLs into their last segment', () => {
      expect(hideLocalPaths(`file:${attempt}/source: Invalid data found when processing input`, roots)).toBe(
        'source: Invalid data found when processing input',
      );
      expect(hideLocalPaths(`could not decode audio ${attempt}/audio.wav: '${attempt}/audio.wav'`, roots)).toBe(
        "could not decode audio audio.wav: 'audio.wav'",
      );
      expect(hideLocalPaths(`open '/tmp/render-agent-x/a.wav' failed`, roots)).toBe("open 'a.wav' failed");
      expect(hideLocalPaths(`mkdir ${work} failed`, roots)).toBe('mkdir <folder> failed');
      expect(hideLocalPaths('Error opening input file:///srv/other/x.mp4.', [])).toBe('Error opening input x.mp4.');
    });

    it('leaves look-alikes and ordinary words alone', () => {
      expect(hideLocalPaths('/tmpfoo/x and the profile:x of a file: here', roots)).toBe('/tmpfoo/x and the profile:x of a file: here');
      expect(hideLocalPaths('moov atom not found', roots)).toBe('moov atom not found');
    });

    it('is applied to every classified failure', () => {
      expect(classifyFailure(new PipelineError('media_invalid', `bad (file:${attempt}/source: EOF)`), roots)).toEqual({
        code: 'media_invalid',
        message: 'bad (source: EOF)',
      });
      expect(classifyFailure(new Error(`ENOSPC: write '${attempt}/audio.wav'`), roots).message).toBe("render-agent internal error: ENOSPC: write 'audio.wav'");
    });
  });
});
