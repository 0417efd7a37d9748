import { type CallerRequest, FAILURE_DETAILS, FailureDetail, renderFailureDetail } from '@cutroom/shared/failure-details';
import type { AgentFailureCode } from '@cutroom/shared/failures';

/**
 * A failure the pipeline can name: the code goes to the coordinator's `fail` call (the shared
 * failure table decides retry and refund; only the codes an agent may report fit here). The
 * message is this agent's own account for its log and the attempt row operators read (tool
 * output included, local paths taken out); the caller reads only what the coordinator renders
 * from `detail` (shared/src/failure-details.ts), which every failure of the caller's input carries.
 */
export class PipelineError extends Error {
  override readonly name = 'PipelineError';
  readonly code: AgentFailureCode;
  readonly detail: FailureDetail | undefined;
  constructor(code: AgentFailureCode, message: string, options?: { cause?: unknown; detail?: FailureDetail | undefined }) {
    super(message, options);
    this.code = code;
    this.detail = options?.detail;
  }
}

/**
 * A failure of the caller's input, named by its catalogue detail: the code is the one the detail
 * accompanies, and the message is the sentence the caller will read, then the tool's own words in
 * parentheses when there are any (for the log). `request` is the assignment's copy of what the
 * caller asked for, for a sentence that repeats it; the coordinator uses its own. A detail out of
 * the catalogue's bounds is not sent (the caller then reads the code's generic sentence).
 */
export function inputFailure(detail: FailureDetail, o: { tool?: string; request?: CallerRequest; cause?: unknown } = {}): PipelineError {
  const code = FAILURE_DETAILS[detail.code].failure;
  const sentence = renderFailureDetail(code, detail, o.request ?? {}) ?? `${code} (${detail.code})`;
  const valid = FailureDetail.safeParse(detail).success;
  return new PipelineError(code, o.tool ? `${sentence} (${o.tool})` : sentence, { cause: o.cause, ...(valid && { detail }) });
}

/** The coordinator refused a fenced call (HTTP 409): this attempt is no longer ours. */
export class StaleAttemptError extends Error {
  override readonly name = 'StaleAttemptError';
}

/** The coordinator answered with an error we do not retry (4xx other than 409, bad body). */
export class CoordinatorError extends Error {
  override readonly name = 'CoordinatorError';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * Text the coordinator can store: tool output may carry NUL bytes or broken UTF-16, which the
 * coordinator refuses with a 400 that `fail` would not retry. Capped at the protocol's 2000 chars.
 */
export function storableMessage(text: string): string {
  return text.replaceAll('\u0000', '').slice(0, 2000).toWellFormed();
}

// What ends a path in tool output: whitespace, quotes, brackets, separators. A hidden root must
// start and end at one of these (or the text's ends), so `/tmp` does not match `/tmpfoo`.
const STOP = String.raw`\s'"<>|,;:()\[\]=`;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, String.raw`\$&`);
const lastSegment = (p: string) => p.replace(/\/+$/, '').split('/').at(-1) || '<folder>';

/**
 * A failure message is stored on the attempt row operators read, so no path under `roots` (the
 * attempt's work folder, WORK_DIR, the temp folder) and no `file:` URL may appear in one: each
 * becomes its last segment (`file:/tmp/cutroom-agent/<attempt>/source` → `source`), a bare root
 * `<folder>`. Executors already word their messages without paths; this is the net behind them.
 */
export function hideLocalPaths(text: string, roots: readonly string[]): string {
  let out = text;
  const unique = [...new Set(roots.filter((r) => r.length > 1).map((r) => r.replace(/\/+$/, '')))].sort((a, b) => b.length - a.length);
  for (const root of unique) {
    const re = new RegExp(`(?<![^${STOP}])(?:file:(?://)?)?${escapeRegExp(root)}(?:/[^${STOP}]*)?(?![^${STOP}])`, 'g');
    out = out.replace(re, (m) => (m.replace(/^file:(\/\/)?/, '') === root ? '<folder>' : lastSegment(m)));
  }
  return out.replace(new RegExp(`(?<![^${STOP}])file:[^${STOP}]+`, 'g'), (m) => lastSegment(m.replace(/^file:(\/\/)?/, '')));
}

/**
 * Turns whatever reached the pipeline's top into what `fail` sends: a code, a message with every
 * path under `hideRoots` (see hideLocalPaths) and every `file:` URL taken out, and the failure's
 * detail when it has one.
 */
export function classifyFailure(err: unknown, hideRoots: readonly string[] = []): { code: AgentFailureCode; message: string; detail?: FailureDetail } {
  const clean = (text: string) => storableMessage(hideLocalPaths(text, hideRoots));
  if (err instanceof PipelineError) return { code: err.code, message: clean(err.message), ...(err.detail && { detail: err.detail }) };
  const detail = err instanceof Error ? err.message : String(err);
  return { code: 'internal', message: clean(`render-agent internal error: ${detail}`) };
}

/**
 * cancelled/stale: the coordinator said stop. shutdown: this agent is stopping. unreachable:
 * the coordinator would not take a stage report; the lease runs out and the job is retried.
 */
export type AbortReason = 'cancelled' | 'stale' | 'shutdown' | 'unreachable';

/** Why an attempt was stopped from outside; the pipeline stops quietly (no `fail`) on any of them. */
export class AttemptAbortedError extends Error {
  override readonly name = 'AttemptAbortedError';
  readonly why: AbortReason;
  constructor(why: AbortReason, message: string) {
    super(message);
    this.why = why;
  }
}
