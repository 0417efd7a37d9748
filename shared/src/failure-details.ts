import { z } from 'zod';
import { type AgentFailureCode, failureMessage } from './failures.ts';
import { LIMITS } from './limits.ts';

/**
 * What a caller reads about a failure an agent reported (issue 23): an agent names one of these
 * details, with typed parameters, and the coordinator renders the sentence. No parameter is free
 * text (numbers with bounds, booleans, enums, identifiers under a strict pattern), so whatever an
 * agent writes in its own words (`FailRequest.message`, tool output included) reaches the logs and
 * the attempt rows operators read, never a caller. The sentences are the ones the render agent
 * wrote before, less the tool text some of them carried.
 *
 * Members are only ever added; an agent sends a detail only with the failure code its entry names.
 */

/** A container format as ffprobe names it (`mov,mp4,m4a,3gp,3g2,mj2`, `png_pipe`). */
export const FormatName = z.string().regex(/^[a-z0-9_,]{1,40}$/);
/** A subject id as detection writes it (render-agent reframe/track.ts: `s1`, `s2` …). */
const DetectedSubjectId = z.string().regex(/^s[1-9][0-9]{0,3}$/);
/** Seconds of media: a long upload is hours; ten days is beyond anything a job can hold. */
const Seconds = z.number().min(0).max(864_000);

/** The cut pipelines' ffmpeg passes (render-agent executors/ffmpeg-pass.ts), by what each is doing. */
export const PassStep = z.enum(['measuring_loudness', 'measuring_clip_loudness', 'joining_clip', 'encoding_clip', 'encoding_vertical_clip']);
export type PassStep = z.infer<typeof PassStep>;
export const PASS_STEPS: Readonly<Record<PassStep, string>> = {
  measuring_loudness: 'measuring the loudness',
  measuring_clip_loudness: 'measuring the loudness of the clip',
  joining_clip: 'joining the parts of the clip',
  encoding_clip: 'encoding the clip',
  encoding_vertical_clip: 'encoding the vertical clip',
};

/** The step a decode failed in: one of the passes, or a step with its own wording. */
export const DecodeStep = z.enum(['audio_extraction', 'transcription', 'subject_detection', ...PassStep.options]);
export type DecodeStep = z.infer<typeof DecodeStep>;

const isPassStep = (step: DecodeStep): step is PassStep => PassStep.safeParse(step).success;

/** The sentence of a failed decode. */
export function decodeFailureText(step: DecodeStep): string {
  if (isPassStep(step)) return `the source could not be decoded while ${PASS_STEPS[step]}`;
  return {
    audio_extraction: 'the audio in the uploaded file could not be decoded',
    transcription: 'the audio could not be decoded',
    subject_detection: 'the video could not be decoded for subject detection',
  }[step];
}

/** The accepted upload formats, as the caller knows them (shared/src/media-types.ts; the agent's demuxer list). */
const ACCEPTED_FORMATS_TEXT = 'MP3, WAV, M4A, OGG/Opus, FLAC, AAC, WebM, MP4, MOV, MKV or AVI';

const NOT_MEDIA = 'the uploaded file is not audio or video that ffprobe can read';

/** Why a source_url was not fetched (render-agent pipelines/source-fetch.ts). */
export const SourceUrlReason = z.enum([
  'refused_address',
  'refused_scheme',
  'refused_url',
  'unresolvable',
  'too_many_redirects',
  'http_status',
  'too_large',
  'timed_out',
  'unreachable',
  'not_media',
]);
export type SourceUrlReason = z.infer<typeof SourceUrlReason>;

/** The classes of address a source_url may not reach (shared/src/net/public-address.ts), as a refusal names them. */
export const RefusedRange = z.enum([
  'loopback',
  'private',
  'link_local',
  'unique_local',
  'carrier_grade_nat',
  'unspecified',
  'multicast',
  'broadcast',
  'reserved',
  'embeds_ipv4',
  'other',
]);
export type RefusedRange = z.infer<typeof RefusedRange>;

const RANGE_TEXT: Readonly<Record<RefusedRange, string>> = {
  loopback: 'a loopback',
  private: 'a private (RFC 1918)',
  link_local: 'a link-local (cloud metadata)',
  unique_local: 'a private IPv6 (unique-local)',
  carrier_grade_nat: 'a carrier-grade NAT',
  unspecified: 'an unspecified',
  multicast: 'a multicast',
  broadcast: 'a broadcast',
  reserved: 'a reserved or documentation',
  embeds_ipv4: 'an IPv6 address embedding an IPv4',
  other: 'a non-public',
};

/** What a fetched file that is not media looked like (shared/src/media-sniff.ts), as far as the caller is told. */
export const LooksLike = z.enum(['text', 'web_page', 'image', 'document', 'archive', 'other']);
export type LooksLike = z.infer<typeof LooksLike>;

const detail = <C extends string, P extends z.core.$ZodLooseShape>(code: C, params: P) =>
  z.strictObject({ code: z.literal(code), params: z.strictObject(params) });

export const FailureDetail = z.discriminatedUnion('code', [
  /** ffprobe could not read the upload; `unreadable` stands for its own error line (logged, not shown). */
  detail('not_media', { reason: z.enum(['no_json', 'no_streams', 'refers_to_other_files', 'unreadable']) }),
  /** The container is not one we accept; `detected` is ffprobe's name for it when it said one. */
  detail('format_refused', { detected: FormatName.optional() }),
  /** The upload (or a cut's source) names other files or URLs for ffmpeg to open. */
  detail('refers_to_other_files', { input: z.enum(['uploaded_file', 'source']) }),
  /** The upload's audio ends before the length its header declares. */
  detail('cut_short', {}),
  /** A decode failed part-way; ffmpeg's own line goes to the agent's log. */
  detail('undecodable', { step: DecodeStep }),
  detail('no_audio', { has_video: z.boolean() }),
  /** Longer than the service's limit (LIMITS.mediaMaxSeconds), which the sentence names. */
  detail('too_long', { duration_seconds: Seconds.gt(LIMITS.mediaMaxSeconds) }),
  /** A cut's source is not a video ffprobe can read. */
  detail('not_video', {}),
  /** A cut's source has no (non-cover-art) video stream. */
  detail('no_video_stream', {}),
  /** The parent a cut is made from has no video. */
  detail('parent_has_no_video', { job_type: z.enum(['extract_clip', 'edit_from_transcript', 'extract_vertical_clip']) }),
  /**
   * A segment (1-based; absent for a vertical clip's one range) ends past the parent's video. The
   * segment's label is the caller's own, read by the coordinator from the job, never from the agent.
   */
  detail('ends_past_video', { segment: z.int().min(1).max(1000).optional(), end_seconds: Seconds, video_seconds: Seconds }),
  /** The subject the caller asked for (read from the job) is not among those detected in the clip. */
  detail('subject_not_found', { found: z.array(DetectedSubjectId).max(100) }),
  /** The source_url was refused or its answer was not a media file we take. */
  detail('source_url', {
    reason: SourceUrlReason,
    range: RefusedRange.optional(),
    http_status: z.int().min(100).max(599).optional(),
    max_bytes: z.int().positive().optional(),
    looks_like: LooksLike.optional(),
  }),
]);
export type FailureDetail = z.infer<typeof FailureDetail>;
export type FailureDetailCode = FailureDetail['code'];

/**
 * What the caller asked for, as the coordinator stored it on the job: a detail that repeats the
 * caller's own words (a segment's label, a subject id) takes them from here, so an agent cannot
 * put text there. The render agent passes its assignment's copy for its own log line.
 */
export interface CallerRequest {
  subject_id?: string | null;
  /** Each segment's label, in the job's order. */
  segment_labels?: readonly (string | null)[];
}

type Entry<C extends FailureDetailCode> = {
  /** The failure code this detail accompanies; with any other code it is not shown. */
  failure: AgentFailureCode;
  /** The caller's sentence, or null when the job lacks what it repeats (then the generic one is shown). */
  render(params: Extract<FailureDetail, { code: C }>['params'], request: CallerRequest): string | null;
};

export const FAILURE_DETAILS: { readonly [C in FailureDetailCode]: Entry<C> } = {
  source_url: { failure: 'source_url_failed', render: (p) => sourceUrlText(p) },
  not_media: {
    failure: 'media_invalid',
    render: ({ reason }) =>
      ({
        no_json: `${NOT_MEDIA} (ffprobe printed no JSON)`,
        no_streams: `${NOT_MEDIA} (no streams found)`,
        refers_to_other_files: `${NOT_MEDIA} (it refers to other files or URLs, which are not read)`,
        unreadable: NOT_MEDIA,
      })[reason],
  },
  format_refused: {
    failure: 'media_invalid',
    render: ({ detected }) => `the uploaded file${detected ? ` (${detected})` : ''} is not in an accepted format; upload ${ACCEPTED_FORMATS_TEXT}`,
  },
  refers_to_other_files: {
    failure: 'media_invalid',
    render: ({ input }) => `${input === 'source' ? 'the source' : 'the uploaded file'} refers to other files or URLs, which are not read`,
  },
  cut_short: {
    failure: 'media_invalid',
    render: () => 'the uploaded file is cut short: its audio ends before the length its header declares; upload the whole file',
  },
  undecodable: { failure: 'media_invalid', render: ({ step }) => decodeFailureText(step) },
  no_audio: {
    failure: 'media_no_audio',
    render: ({ has_video }) => `the uploaded ${has_video ? 'video' : 'file'} has no audio stream, so there is nothing to transcribe`,
  },
  too_long: {
    failure: 'media_too_long',
    render: ({ duration_seconds }) =>
      `the media is ${(duration_seconds / 3600).toFixed(1)} h long; the limit is ${(LIMITS.mediaMaxSeconds / 3600).toFixed(0)} h`,
  },
  not_video: { failure: 'media_invalid', render: () => 'the source is not a video ffprobe can read' },
  no_video_stream: { failure: 'media_invalid', render: () => 'the source has no video stream to cut' },
  parent_has_no_video: {
    failure: 'media_invalid',
    render: ({ job_type }) =>
      job_type === 'extract_vertical_clip'
        ? 'the parent has no video: a vertical clip needs one'
        : `the parent has no video stream: ${job_type} cuts video (use the transcript for audio)`,
  },
  ends_past_video: {
    failure: 'media_invalid',
    render: ({ segment, end_seconds, video_seconds }, request) => {
      let what = 'the clip';
      if (segment !== undefined) {
        const labels = request.segment_labels;
        // A segment the job does not have is not this job's failure.
        if (labels === undefined || segment > labels.length) return null;
        const label = labels[segment - 1];
        what = `segment ${segment}${label ? ` (${label})` : ''}`;
      }
      return `${what} ends at ${end_seconds} s but the parent's video is only ${video_seconds.toFixed(3)} s long`;
    },
  },
  subject_not_found: {
    failure: 'media_invalid',
    render: ({ found }, { subject_id }) =>
      subject_id
        ? `subject_id ${subject_id} was not found in this clip; subjects found: ${found.join(', ') || 'none'} (run subject=auto and read the subjects output)`
        : null,
  },
};

const MIB = 1024 * 1024;

/** The sentence of a source_url failure. */
function sourceUrlText(p: Extract<FailureDetail, { code: 'source_url' }>['params']): string {
  const head = 'the source_url';
  switch (p.reason) {
    case 'refused_address':
      return `${head} (or a redirect from it) points to ${RANGE_TEXT[p.range ?? 'other']} address: only public addresses are fetched`;
    case 'refused_scheme':
      return `${head} (or a redirect from it) is not an https URL`;
    case 'refused_url':
      return `${head} (or a redirect from it) is not a URL that is fetched (credentials in it, or malformed)`;
    case 'unresolvable':
      return `${head}'s host name could not be resolved`;
    case 'too_many_redirects':
      return `${head} redirected too many times`;
    case 'http_status':
      return `${head} answered HTTP ${p.http_status ?? 'error'}, not the file`;
    case 'too_large':
      return `the file at ${head} is larger than the limit of ${p.max_bytes ? `${Math.round(p.max_bytes / MIB)} MiB` : 'the service'}`;
    case 'timed_out':
      return `${head} did not deliver the file within the time limit`;
    case 'unreachable':
      return `${head}'s server could not be reached or broke off the transfer`;
    case 'not_media': {
      const what = { text: 'text', web_page: 'a web page', image: 'an image', document: 'a document', archive: 'an archive', other: 'in no format we know' }[
        p.looks_like ?? 'other'
      ];
      return `the file at ${head} is ${what}, not audio or video: give the URL of the media file itself`;
    }
  }
}

/** The detail's sentence, or null when it does not fit this failure code or this job. */
export function renderFailureDetail(code: AgentFailureCode, detail: FailureDetail, request: CallerRequest): string | null {
  const entry = FAILURE_DETAILS[detail.code] as Entry<FailureDetailCode>;
  if (entry.failure !== code) return null;
  return entry.render(detail.params as never, request);
}

/**
 * What the caller reads (error_message) for a failure an agent reported: the detail's sentence
 * when the code is the caller's fault and the detail fits it, else the code's own sentence
 * (failureMessage: a generic one for user-blamed codes, "refunded, please try again" for ours).
 * The agent's message is never an argument: it cannot reach the caller from here.
 */
export function reportedFailureMessage(code: AgentFailureCode, detail: FailureDetail | undefined, request: CallerRequest): string {
  const rendered = detail ? renderFailureDetail(code, detail, request) : null;
  return rendered ?? failureMessage(code, '');
}
