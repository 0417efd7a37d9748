import { and, eq } from 'drizzle-orm';
import type { CreateJobRequest } from '@cutroom/shared/api';
import type { BundleClip, BundleJobType } from '@cutroom/shared/bundles';
import { CLIP_TARGETS, ClipTarget, lengthsLabel } from '@cutroom/shared/clips/clip-targets';
import { ClipsV1, type ClipCandidate } from '@cutroom/shared/clips/clips-v1';
import { DEFAULT_VERTICAL_PROFILE, VERTICAL_PROFILES } from '@cutroom/shared/clips/profiles';
import type { JobType } from '@cutroom/shared/job-types';
import { LIMITS } from '@cutroom/shared/limits';
import type { Ctx } from '../../context.ts';
import { jobOutputs } from '../../db/schema.ts';
import type { ParentView } from '../../job-types/definition.ts';
import { AppError } from '../../lib/app-error.ts';
import { BlobNotFoundError } from '../../storage/blob-store.ts';

/**
 * A clip bundle's children as requests of their own type (extract_vertical_clip, one-segment
 * extract_clip), from clips named by candidate or by window: shared by the bundles and the agent
 * products, which cut their clips the same way.
 */

const bad = (message: string) => new AppError('invalid_request', message);

/** The job type each bundle's children are: they reuse that type's validation, pipeline and outputs. */
export const CHILD_TYPE_OF: Readonly<Record<BundleJobType, JobType>> = {
  clips_vertical: 'extract_vertical_clip',
  clips_horizontal: 'extract_clip',
};

const VERTICAL_ONLY = ['profile', 'aspect', 'subject', 'subject_id', 'subject_box', 't_ref', 'subject_x_offset'] as const;

/** A find_clips job's candidates from its stored clips v1 document; null when it has none any more (deleted). */
export async function storedCandidates(ctx: Ctx, jobId: string): Promise<ClipCandidate[] | null> {
  const [row] = await ctx.db
    .select({ key: jobOutputs.storageKey })
    .from(jobOutputs)
    .where(and(eq(jobOutputs.jobId, jobId), eq(jobOutputs.role, 'clips')))
    .limit(1);
  if (!row?.key) return null;
  let bytes: Buffer;
  try {
    bytes = await ctx.blobs.getBytes(row.key);
  } catch (err) {
    if (err instanceof BlobNotFoundError) return null;
    throw err;
  }
  // Checked against the schema when the parent completed; parsed again so a bad object is ours, not a crash.
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    body = null;
  }
  const doc = ClipsV1.safeParse(body);
  if (!doc.success) throw new Error(`clips document of job ${jobId} does not match clips v1`);
  return doc.data.candidates;
}

/** A clip's window: its candidate's, or its own start/end (checked by the child type's prepare). */
export function windowOf(clip: BundleClip, n: number, candidates: ClipCandidate[]): { start?: number; end?: number; title?: string; candidate: string | null } {
  if (clip.candidate_id === undefined) {
    if (clip.start === undefined || clip.end === undefined) {
      throw bad(`clip ${n}: name a candidate of the parent (candidate_id, e.g. "c1") or give start and end (seconds of the parent)`);
    }
    return { start: clip.start, end: clip.end, ...(clip.title !== undefined && { title: clip.title }), candidate: null };
  }
  if (clip.start !== undefined || clip.end !== undefined) {
    throw bad(`clip ${n}: send either candidate_id (the candidate's own start and end) or start and end, not both`);
  }
  const c = candidates.find((x) => x.id === clip.candidate_id);
  if (!c) {
    const ids = candidates.map((x) => x.id);
    throw bad(
      `clip ${n}: candidate_id ${clip.candidate_id} is not a candidate of the parent; ${ids.length ? `its candidates are ${ids.join(', ')}` : 'it has no candidates: give start and end'}`,
    );
  }
  return { start: c.start, end: c.end, title: clip.title ?? c.title.slice(0, LIMITS.titleMaxChars), candidate: c.id };
}

/**
 * What to add to the refusal of a vertical clip whose candidate is longer than its profile takes:
 * the find_clips target whose candidates fit that profile whole (a stories clip is trimmed by
 * nobody: the caller asks for candidates of its length). Empty when it does not apply.
 */
export function targetHintFor(clip: BundleClip, w: ReturnType<typeof windowOf>): string {
  if (w.candidate === null || w.start === undefined || w.end === undefined) return '';
  const profile = clip.profile ?? DEFAULT_VERTICAL_PROFILE;
  const cap = VERTICAL_PROFILES[profile].maxSeconds;
  const target = ClipTarget.options.filter((t) => CLIP_TARGETS[t].maxSeconds <= cap).at(-1);
  if (w.end - w.start <= cap || !target) return '';
  return `; or run find_clips with target "${target}": its candidates (${lengthsLabel(CLIP_TARGETS[target])}) fit ${profile} whole`;
}

/** One clip as the child type's CreateJobRequest, so its own prepare() validates it against the parent (agent products reuse it). */
export function childRequest(type: BundleJobType, clip: BundleClip, n: number, parent: ParentView, w: ReturnType<typeof windowOf>): CreateJobRequest {
  if (type === 'clips_horizontal') {
    const vertical = VERTICAL_ONLY.filter((k) => clip[k] !== undefined);
    if (vertical.length) throw bad(`clip ${n}: ${vertical.join(', ')} apply to clips_vertical; clips_horizontal keeps the source's own framing`);
    if (w.start === undefined || w.end === undefined) throw bad(`clip ${n}: start and end are required`);
    return {
      job_type: 'extract_clip',
      source_job_id: parent.job.id,
      segments: [{ start: w.start, end: w.end, ...(w.title !== undefined && { label: w.title }) }],
      include_transcript: parent.roles.includes('transcript'),
      ...(w.title !== undefined && { title: w.title }),
    };
  }
  const { candidate_id: _c, start: _s, end: _e, title: _t, ...framing } = clip;
  return {
    job_type: 'extract_vertical_clip',
    source_job_id: parent.job.id,
    ...(w.start !== undefined && { start: w.start }),
    ...(w.end !== undefined && { end: w.end }),
    ...(w.title !== undefined && { title: w.title }),
    ...framing,
  };
}
