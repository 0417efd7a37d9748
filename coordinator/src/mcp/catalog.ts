import { z } from 'zod';
import { ListJobsQuery } from '@cutroom/shared/api';
import { BundleClip } from '@cutroom/shared/bundles';
import { VerticalProfile } from '@cutroom/shared/clips/profiles';
import { SubjectStrategy } from '@cutroom/shared/clips/subjects-v1';
import type { JobType } from '@cutroom/shared/job-types';
import type { RateLimitGroup } from '../http/rate-limit.ts';
import { LIMITS } from '@cutroom/shared/limits';
import { AUDIO_CONTENT_TYPES, VIDEO_CONTENT_TYPES } from '@cutroom/shared/media-types';
import { ClipsFromVideoRequest, ClipsYoutubeRequest, type AgentProduct } from '@cutroom/shared/products';
import { TRANSCRIPT_FORMATS } from '@cutroom/shared/transcript/index';
import { JOB_TYPE_DEFINITIONS } from '../job-types/agent-types.ts';

/**
 * The MCP tools, one table: name, title, what an agent reads to choose it, its input schema (the
 * zod schema REST validates with, picked per job type from the type's own definition), and what
 * it costs. An agent-run job type's tool is built from its definition's `mcp` text (agentTools). The MCP server (mcp/server.ts) lists and dispatches from this table; the discovery
 * documents (agent card, MCP server card, ai-plugin) are generated from it, so none can drift.
 */

/** What a tool charges, named by the price table it reads (shared/src/prices.ts). */
export type ToolPrice =
  | { kind: 'free' }
  /** A job type's own price (by media for uploads, per call for cuts). */
  | { kind: 'job'; jobType: JobType }
  /** A clip bundle: the per-clip price × the number of clips, on both rails over MCP. */
  | { kind: 'per_clip'; jobType: 'clips_vertical' | 'clips_horizontal' }
  /** An agent product: a card hold of the worst case, captured for what was delivered. */
  | { kind: 'hold'; product: AgentProduct }
  | { kind: 'smoke_test' };

export interface ToolEntry {
  name: string;
  title: string;
  description: string;
  /** Validated before anything runs; a failure is a tool error naming the field. */
  input: z.ZodObject;
  price: ToolPrice;
  /** The tool may wait for a job and report progress notifications (MCP progressToken). */
  streams?: boolean;
  /** The REST rate-limit group each call counts in (http/rate-limit.ts): creating and paying are limited, reading is not. */
  limit?: RateLimitGroup;
  /** MCP tool annotations: hints a host shows or acts on (confirming a paid call, retrying a read), set truthfully per tool. */
  hints: ToolHints;
}

/** MCP's tool annotations (2025-03-26 and later): what a call does to the world. */
export interface ToolHints {
  /** Changes nothing (a read). */
  readOnlyHint: boolean;
  /** May delete or overwrite what the caller has (only meaningful when not read-only). */
  destructiveHint: boolean;
  /** Repeating the call with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** Reaches beyond this service (fetches a caller's URL, publishes to a video host). */
  openWorldHint: boolean;
}

/** Reads: get_job_status, get_transcript, get_download_links, list_jobs. */
const READS: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Creates (and, billing on, charges for) something new on every call: a job, a bundle, a session, a payment. */
const CREATES: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/** Moves an existing job on; the same call again answers the same. */
const ADVANCES: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** Every tool also takes the session token as an argument, for hosts that cannot set an Authorization header. */
export const SessionTokenArg = z
  .string()
  .min(1)
  .max(512)
  .optional()
  .describe(
    'The session_token from create_session (or from the answer of a paid call made without one). Alternatively send it as `Authorization: Bearer <token>` on the MCP HTTP request. Jobs belong to the session that created them',
  );

const jobId = z.uuid().describe('The job_id a create tool returned');
const sourceJobId = z
  .uuid()
  .describe(
    'A completed transcribe, summarize or find_clips job of your session that still holds its source (find_clips jobs keep it 72 h, others 24 h): no re-upload',
  );

/** A job type's own request fields (its definition's schema, minus job_type), plus the session token. */
function jobTypeInput(type: JobType, required: readonly string[] = []): z.ZodObject {
  const def = JOB_TYPE_DEFINITIONS[type];
  if (!def) throw new Error(`no definition for ${type}`);
  const shape: Record<string, z.ZodType> = { ...def.request.shape };
  for (const k of required) {
    const field = shape[k];
    // Required here: unwrapped, keeping the description the optional field carried.
    if (field instanceof z.ZodOptional)
      shape[k] = field.description ? (field.unwrap() as z.ZodType).describe(field.description) : (field.unwrap() as z.ZodType);
  }
  if ('source_job_id' in shape) shape['source_job_id'] = sourceJobId;
  // Over MCP the accepted media types are listed (an agent picks one); REST also takes them with parameters and in any case.
  if ('content_type' in shape) {
    const field = z
      .enum([...AUDIO_CONTENT_TYPES, ...VIDEO_CONTENT_TYPES] as [string, ...string[]])
      .describe('The media type of the file: an audio type (the audio price) or a video type (the video price); the upload URL is bound to it');
    shape['content_type'] = required.includes('content_type') ? field : field.optional();
  }
  return z.strictObject({ ...shape, session_token: SessionTokenArg });
}

const withSession = <T extends z.ZodRawShape>(shape: T) => z.strictObject({ ...shape, session_token: SessionTokenArg });

/**
 * How paying works, once for every paid tool: said in the server's instructions (mcp/server.ts
 * MCP_INSTRUCTIONS), which hosts give the model with the tool list. Each paid tool's description
 * carries only PAY_NOTE, which points there (the same paragraph in 14 tools was 12 KB of tools/list).
 */
export const PAYMENT_RULES =
  'With billing on, the first call of a paid tool answers JSON-RPC error -32042 (payment required) with MPP challenges in data.challenges and, wherever the card rail can take the price, a hosted card checkout_url for browser hosts with the job_id it pays (called without a session, also the session_token that owns that job: keep it, it is given only there); repeat the same call with the credential in params._meta["org.paymentauth/credential"] (any MPP client does this), and the receipt comes back in result._meta["org.paymentauth/receipt"]. A job paid at its checkout_url continues with get_upload_url (uploads) or get_job_status (cuts and clip batches start once paid; repeating the call would create another job), with that job_id and session_token.';
const PAY_NOTE = 'Paid: the first call with billing on answers -32042 (payment required); how to pay and go on is in the server instructions ("Paying").';
const UPLOAD_NOTE =
  'Returns job_id and upload_url: PUT the file bytes to upload_url with the same Content-Type, then call complete_upload, then get_job_status with wait_seconds until completed.';
/** Media by URL: the job types' upload tools only (the agent products take uploads). */
const URL_NOTE =
  'Or give source_url (the https URL of the media file itself, not of its web page) with content_type instead of filename: nothing to upload, the job starts at once (the service fetches the file); then call get_job_status with wait_seconds.';
const CUT_NOTE = 'Runs at once (no upload): then call get_job_status with wait_seconds until completed; outputs carry download links.';

/**
 * The tools of the agent-run job types, one per type, built from its definition's `mcp` text
 * (job-types/<type>.ts): named as the type, its request schema as input, its own price. Upload
 * types come first (after create_session), cuts after the read tools, each kind by its rank.
 */
function agentTools(input: 'upload' | 'parent'): ToolEntry[] {
  return Object.values(JOB_TYPE_DEFINITIONS)
    .flatMap((def) => (def && 'title' in def.mcp && def.facts.input.kind === input ? [{ def, text: def.mcp }] : []))
    .sort((a, b) => a.text.rank - b.text.rank)
    .map(({ def, text }) => ({
      name: def.type,
      title: text.title,
      description: `${text.description} ${input === 'upload' ? `${UPLOAD_NOTE} ${URL_NOTE}` : CUT_NOTE} ${PAY_NOTE}`,
      input: jobTypeInput(def.type, text.required),
      price: { kind: 'job', jobType: def.type },
      limit: 'job_create',
      // An upload tool may fetch the caller's source_url from the internet.
      hints: input === 'upload' ? { ...CREATES, openWorldHint: true } : CREATES,
    }));
}

export const MCP_TOOLS: readonly ToolEntry[] = [
  {
    name: 'create_session',
    title: 'Create a session',
    description:
      'Free. Creates an anonymous session and returns its session_token; pass it as session_token (or Authorization: Bearer) to every later call. Optional: a paid call made without a session creates one and returns its token (in the result once paid by a credential, or in the -32042 beside its checkout_url).',
    input: z.strictObject({}),
    price: { kind: 'free' },
    hints: CREATES,
    limit: 'session_create',
  },
  ...agentTools('upload'),
  {
    name: 'complete_upload',
    title: 'Start processing an upload',
    description:
      'After the PUT to upload_url: verifies the file reached storage and starts processing. Then call get_job_status with wait_seconds. Payment-gated like get_upload_url when the job is still unpaid.',
    input: withSession({ job_id: jobId }),
    price: { kind: 'free' },
    hints: ADVANCES,
    limit: 'payment',
  },
  {
    name: 'get_upload_url',
    title: 'Get a fresh upload URL',
    description: `A presigned URL to PUT the file to (valid 1 hour), for a job created by transcribe, summarize, find_clips, clips_from_video or clips_youtube: use it after paying by the hosted checkout_url, or when the first URL expired. ${PAY_NOTE}`,
    input: withSession({ job_id: jobId }),
    price: { kind: 'free' },
    hints: ADVANCES,
    limit: 'payment',
  },
  {
    name: 'get_job_status',
    title: 'Job status, progress and outputs',
    description:
      'The job (status, progress, error_message, outputs with download_url links). wait_seconds > 0 waits until the job is completed or failed (or the time is up) instead of returning at once, and sends MCP progress notifications (stage and fraction) when the request carries a progressToken. Failed jobs are refunded automatically.',
    input: withSession({
      job_id: jobId,
      wait_seconds: z
        .number()
        .int()
        .min(0)
        .max(290)
        .optional()
        .describe('Wait up to this many seconds for the job to end (default 0: answer at once; at most 290)'),
    }),
    price: { kind: 'free' },
    hints: READS,
    streams: true,
  },
  {
    name: 'get_transcript',
    title: 'Read a transcript',
    description:
      'The transcript of a completed job, inline, in any format: srt (default), txt, vtt, json (v1 segments), words (v2, per-word timestamps), edit (one "[NNNN] text" line per sentence: delete words or lines, move lines, then send it to edit_from_transcript). Works for transcribe, summarize, find_clips, extract_clip and edit_from_transcript jobs.',
    input: withSession({
      job_id: jobId,
      format: z.enum(TRANSCRIPT_FORMATS).optional().describe('srt (default), txt, vtt, json, words or edit'),
    }),
    price: { kind: 'free' },
    hints: READS,
  },
  {
    name: 'get_download_links',
    title: 'Download links of a job',
    description:
      "Fresh download links (valid 1 hour) of a completed job's outputs: download_url (inline) and attachment_url (download with a file name), by role (transcript, clips, summary, clip, subjects, clip_1, …).",
    input: withSession({ job_id: jobId }),
    price: { kind: 'free' },
    hints: READS,
  },
  {
    name: 'list_jobs',
    title: "List this session's jobs",
    description:
      "The session's jobs, newest first, a page at a time (job_id, job_type, status, created_at, source_job_id, bundle_job_id, …; no outputs: get_job_status or get_download_links gives them). Use it to find a job whose id was lost. Pass next_cursor back as cursor, with the same filters, for older jobs; next_cursor null means no more.",
    input: withSession(ListJobsQuery.shape),
    price: { kind: 'free' },
    hints: READS,
  },
  ...agentTools('parent'),
  {
    name: 'clips_vertical',
    title: 'Batch of vertical clips from a find_clips job',
    description: `Up to 5 vertical 9:16 clips of one find_clips job in one purchase (per clip: candidate_id or start/end, optional title, profile and reframing), one job id, one file per clip. Priced per clip on both rails (chain USDC or card). ${CUT_NOTE} ${PAY_NOTE}`,
    input: withSession({
      source_job_id: sourceJobId.describe('A completed find_clips job of your session'),
      clips: z
        .array(BundleClip)
        .min(1)
        .max(LIMITS.clipsPerBatchMax)
        .describe(
          '1-5 clips, each {candidate_id} of the find_clips output or {start, end} in seconds, with an optional title (and for vertical clips profile and reframing)',
        ),
    }),
    price: { kind: 'per_clip', jobType: 'clips_vertical' },
    hints: CREATES,
    limit: 'job_create',
  },
  {
    name: 'clips_horizontal',
    title: 'Batch of 16:9 clips from a find_clips job',
    description: `Up to 5 clips of one find_clips job in the source's own 16:9 framing, one purchase, one job id, delivered as separate files (unlike extract_clip, which joins segments into one file). Per clip: candidate_id or start/end, optional title. Priced per clip on both rails. ${CUT_NOTE} ${PAY_NOTE}`,
    input: withSession({
      source_job_id: sourceJobId.describe('A completed find_clips job of your session'),
      clips: z
        .array(BundleClip)
        .min(1)
        .max(LIMITS.clipsPerBatchMax)
        .describe(
          '1-5 clips, each {candidate_id} of the find_clips output or {start, end} in seconds, with an optional title (and for vertical clips profile and reframing)',
        ),
    }),
    price: { kind: 'per_clip', jobType: 'clips_horizontal' },
    hints: CREATES,
    limit: 'job_create',
  },
  {
    name: 'clips_from_job',
    title: 'Cut chosen candidates of a find_clips job',
    description: `The shortest way from find_clips to finished clips: name the candidate ids you chose (c1, c2, … from its clips output) and the orientation; each becomes one clip (vertical 9:16 reframed, or 16:9 native), priced per clip like clips_vertical / clips_horizontal. ${CUT_NOTE} ${PAY_NOTE}`,
    input: withSession({
      source_job_id: sourceJobId.describe('A completed find_clips job of your session'),
      candidate_ids: z
        .array(z.string().min(1).max(64))
        .min(1)
        .max(LIMITS.clipsPerBatchMax)
        .describe('1-5 candidate ids of its clips output, in the order you want the clips'),
      orientation: z.enum(['vertical', 'horizontal']).optional().describe('vertical (default): 9:16 clips; horizontal: 16:9 in the source framing'),
      profile: VerticalProfile.optional().describe('vertical only: encoding profile (default vidA-primary); caps each clip (240/240/180/60 s)'),
      subject: SubjectStrategy.exclude(['manual', 'subject_id']).optional().describe('vertical only: center (default), auto or follow'),
    }),
    price: { kind: 'per_clip', jobType: 'clips_vertical' },
    hints: CREATES,
    limit: 'job_create',
  },
  {
    name: 'clips_from_video',
    title: 'Video in, finished vertical clips out',
    description: `One purchase: upload a video, the service finds its best moments (find_clips) AND cuts up to 5 vertical 9:16 clips of them (reframed, loudness-normalized). Card only: a hold authorizes the worst case (USD 4.50) and at the end only what was delivered is charged (the find_clips price plus 0.50 per clip delivered), the rest released; a step that fails is not charged. ${UPLOAD_NOTE} Then get_job_status shows each step; its outputs are the clips (clip_1, …), the candidates (clips) and the transcript. ${PAY_NOTE}`,
    input: withSession(ClipsFromVideoRequest.shape),
    price: { kind: 'hold', product: 'clips_from_video' },
    hints: CREATES,
    limit: 'job_create',
  },
  {
    name: 'clips_youtube',
    title: 'Video in, finished 16:9 clips out',
    description: `Like clips_from_video, with up to 5 clips in the source's own 16:9 framing (no reframing, no publishing). Card only: hold of USD 4.50, charged for what was delivered. ${UPLOAD_NOTE} ${PAY_NOTE}`,
    input: withSession(ClipsYoutubeRequest.shape),
    price: { kind: 'hold', product: 'clips_youtube' },
    hints: CREATES,
    limit: 'job_create',
  },
  {
    name: 'mpp_smoke_test',
    title: 'Payment smoke test',
    description: `Charges 0.01 USDC on the chain rail (below the card minimum of USD 0.50, so no card challenge and no checkout_url) and echoes: try your payment set-up before a real job. Paid: with billing on, the first call answers JSON-RPC error -32042 with MPP challenges in data.challenges; repeat the same call with the credential in params._meta["org.paymentauth/credential"], and the receipt comes back in result._meta["org.paymentauth/receipt"].`,
    input: withSession({ echo: z.string().max(LIMITS.echoMaxChars).optional().describe('Returned as given') }),
    price: { kind: 'smoke_test' },
    hints: CREATES,
    limit: 'payment',
  },
];

export type ToolName = (typeof MCP_TOOLS)[number]['name'];

export const toolNamed = (name: string): ToolEntry | undefined => MCP_TOOLS.find((t) => t.name === name);

/** A tool's input schema as JSON Schema (what tools/list and the discovery documents publish). */
export function toolInputJsonSchema(tool: ToolEntry): Record<string, unknown> {
  const { $schema: _s, ...schema } = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return schema;
}
