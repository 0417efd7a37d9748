import { describe, expect, it } from 'vitest';
import { DecodeStep, FAILURE_DETAILS, FailureDetail, renderFailureDetail, reportedFailureMessage } from './failure-details.ts';
import { AgentFailureCode, FAILURES } from './failures.ts';

/** One valid detail of every code, with what the caller reads for it (the agent's wording before issue 23, less tool text). */
const EXAMPLES: [FailureDetail, string][] = [
  [{ code: 'not_media', params: { reason: 'no_json' } }, 'the uploaded file is not audio or video that ffprobe can read (ffprobe printed no JSON)'],
  [{ code: 'not_media', params: { reason: 'no_streams' } }, 'the uploaded file is not audio or video that ffprobe can read (no streams found)'],
  [
    { code: 'not_media', params: { reason: 'refers_to_other_files' } },
    'the uploaded file is not audio or video that ffprobe can read (it refers to other files or URLs, which are not read)',
  ],
  [{ code: 'not_media', params: { reason: 'unreadable' } }, 'the uploaded file is not audio or video that ffprobe can read'],
  [
    { code: 'format_refused', params: { detected: 'png_pipe' } },
    'the uploaded file (png_pipe) is not in an accepted format; upload MP3, WAV, M4A, OGG/Opus, FLAC, AAC, WebM, MP4, MOV, MKV or AVI',
  ],
  [
    { code: 'format_refused', params: {} },
    'the uploaded file is not in an accepted format; upload MP3, WAV, M4A, OGG/Opus, FLAC, AAC, WebM, MP4, MOV, MKV or AVI',
  ],
  [{ code: 'refers_to_other_files', params: { input: 'uploaded_file' } }, 'the uploaded file refers to other files or URLs, which are not read'],
  [{ code: 'refers_to_other_files', params: { input: 'source' } }, 'the source refers to other files or URLs, which are not read'],
  [{ code: 'cut_short', params: {} }, 'the uploaded file is cut short: its audio ends before the length its header declares; upload the whole file'],
  [{ code: 'undecodable', params: { step: 'audio_extraction' } }, 'the audio in the uploaded file could not be decoded'],
  [{ code: 'undecodable', params: { step: 'encoding_clip' } }, 'the source could not be decoded while encoding the clip'],
  [{ code: 'no_audio', params: { has_video: true } }, 'the uploaded video has no audio stream, so there is nothing to transcribe'],
  [{ code: 'no_audio', params: { has_video: false } }, 'the uploaded file has no audio stream, so there is nothing to transcribe'],
  [{ code: 'too_long', params: { duration_seconds: 4 * 3600 + 30 } }, 'the media is 4.0 h long; the limit is 4 h'],
  [{ code: 'not_video', params: {} }, 'the source is not a video ffprobe can read'],
  [{ code: 'no_video_stream', params: {} }, 'the source has no video stream to cut'],
  [
    { code: 'parent_has_no_video', params: { job_type: 'extract_clip' } },
    'the parent has no video stream: extract_clip cuts video (use the transcript for audio)',
  ],
  [{ code: 'parent_has_no_video', params: { job_type: 'extract_vertical_clip' } }, 'the parent has no video: a vertical clip needs one'],
  [
    { code: 'ends_past_video', params: { segment: 2, end_seconds: 12.5, video_seconds: 10 } },
    "segment 2 (the caller's label) ends at 12.5 s but the parent's video is only 10.000 s long",
  ],
  [{ code: 'ends_past_video', params: { end_seconds: 75, video_seconds: 60.04 } }, "the clip ends at 75 s but the parent's video is only 60.040 s long"],
  [
    { code: 'subject_not_found', params: { found: ['s1', 's2'] } },
    'subject_id s7 was not found in this clip; subjects found: s1, s2 (run subject=auto and read the subjects output)',
  ],
  [
    { code: 'source_url', params: { reason: 'refused_address', range: 'link_local' } },
    'the source_url (or a redirect from it) points to a link-local (cloud metadata) address: only public addresses are fetched',
  ],
  [{ code: 'source_url', params: { reason: 'too_large', max_bytes: 2 * 1024 ** 3 } }, 'the file at the source_url is larger than the limit of 2048 MiB'],
  [{ code: 'source_url', params: { reason: 'http_status', http_status: 403 } }, 'the source_url answered HTTP 403, not the file'],
  [
    { code: 'source_url', params: { reason: 'not_media', looks_like: 'web_page' } },
    'the file at the source_url is a web page, not audio or video: give the URL of the media file itself',
  ],
  [{ code: 'source_url', params: { reason: 'timed_out' } }, 'the source_url did not deliver the file within the time limit'],
];

const request = { subject_id: 's7', segment_labels: [null, "the caller's label"] };
const fits = (d: FailureDetail) => FAILURE_DETAILS[d.code].failure;

describe('failure details: the only things an agent can make a caller read', () => {
  it('renders every detail code, each for a user-blamed agent failure', () => {
    const codes = new Set(EXAMPLES.map(([d]) => d.code));
    expect([...codes].sort()).toEqual(Object.keys(FAILURE_DETAILS).sort());
    expect(FailureDetail.options.map((o) => o.shape.code.value).sort()).toEqual(Object.keys(FAILURE_DETAILS).sort());
    for (const [d, sentence] of EXAMPLES) {
      expect(FailureDetail.parse(d)).toEqual(d);
      expect(FAILURES[fits(d)]).toMatchObject({ reporter: 'agent', blame: 'user' });
      expect(renderFailureDetail(fits(d), d, request)).toBe(sentence);
      expect(reportedFailureMessage(fits(d), d, request)).toBe(sentence);
    }
    for (const step of DecodeStep.options) {
      expect(renderFailureDetail('media_invalid', { code: 'undecodable', params: { step } }, {})).toMatch(/could not be decoded/);
    }
  });

  it('refuses free text, unknown fields and out-of-range numbers in params', () => {
    const refused: unknown[] = [
      { code: 'format_refused', params: { detected: 'visit https://evil.example for a refund' } },
      { code: 'format_refused', params: { detected: 'MOV' } },
      { code: 'format_refused', params: { detected: 'a'.repeat(41) } },
      { code: 'not_media', params: { reason: 'the file is broken, email us' } },
      { code: 'not_media', params: { reason: 'unreadable', why: 'free text' } },
      { code: 'not_media', params: { reason: 'unreadable' }, message: 'free text' },
      { code: 'cut_short', params: { note: 'x' } },
      { code: 'undecodable', params: { step: 'the source could not be decoded while encoding the clip' } },
      { code: 'no_audio', params: { has_video: 'yes' } },
      { code: 'too_long', params: { duration_seconds: 3600 } },
      { code: 'too_long', params: { duration_seconds: Number.POSITIVE_INFINITY } },
      { code: 'too_long', params: { duration_seconds: 1e12 } },
      { code: 'ends_past_video', params: { segment: 0, end_seconds: 1, video_seconds: 1 } },
      { code: 'ends_past_video', params: { segment: 1.5, end_seconds: 1, video_seconds: 1 } },
      { code: 'ends_past_video', params: { end_seconds: -1, video_seconds: 1 } },
      { code: 'subject_not_found', params: { found: ['s1', 'call +1 555 0100'] } },
      { code: 'subject_not_found', params: { found: [], subject_id: 'visit evil.example' } },
      { code: 'parent_has_no_video', params: { job_type: 'transcribe' } },
      { code: 'a_code_no_one_defined', params: {} },
      { code: 'not_media' },
      'the uploaded file is broken',
    ];
    for (const d of refused) expect(FailureDetail.safeParse(d).success, JSON.stringify(d)).toBe(false);
  });

  it('shows the generic sentence, never a detail, when the detail does not fit the code or the job', () => {
    const noAudio: FailureDetail = { code: 'no_audio', params: { has_video: true } };
    expect(reportedFailureMessage('media_invalid', noAudio, request)).toBe('the media could not be read');
    expect(reportedFailureMessage('media_invalid', undefined, request)).toBe('the media could not be read');
    expect(reportedFailureMessage('media_no_audio', undefined, request)).toBe('the media has no audio stream, so there is nothing to transcribe');
    expect(reportedFailureMessage('media_too_long', undefined, request)).toBe('the media is longer than the limit of 4 h');
    // A detail that repeats the caller's words needs the job to hold them.
    const subject: FailureDetail = { code: 'subject_not_found', params: { found: [] } };
    expect(reportedFailureMessage('media_invalid', subject, {})).toBe('the media could not be read');
    const segment: FailureDetail = { code: 'ends_past_video', params: { segment: 3, end_seconds: 5, video_seconds: 4 } };
    expect(reportedFailureMessage('media_invalid', segment, request)).toBe('the media could not be read');
    // Ours: a detail changes nothing.
    expect(reportedFailureMessage('tool_failed', noAudio, request)).toBe('processing failed on our side (tool_failed); the job was refunded, please try again');
  });

  it('has a generic sentence for every user-blamed agent failure', () => {
    for (const code of AgentFailureCode.options.filter((c) => FAILURES[c].blame === 'user')) {
      expect(reportedFailureMessage(code, undefined, {})).toMatch(code === 'source_url_failed' ? /^the source_url could not be fetched/ : /^the media /);
    }
  });
});
