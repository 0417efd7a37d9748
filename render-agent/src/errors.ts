import type { AgentFailureCode } from '@cutroom/shared/failures';

/**
 * A failure the pipeline can name: the code goes to the coordinator's `fail` call (the shared
 * failure table decides retry and refund; only the codes an agent may report fit here), the
 * message is shown to the caller, so it says what went wrong in their terms.
 */
export class PipelineError extends Error {
  override readonly name = 'PipelineError';
  readonly code: AgentFailureCode;
  constructor(code: AgentFailureCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
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
 * Failure messages reach the caller (user-blamed ones verbatim), so no path under `roots` (the
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
 * Turns whatever reached the pipeline's top into a code and a message for `fail`, with every
 * path under `hideRoots` (see hideLocalPaths) and every `file:` URL taken out.
 */
export function classifyFailure(err: unknown, hideRoots: readonly string[] = []): { code: AgentFailureCode; message: string } {
  const clean = (text: string) => storableMessage(hideLocalPaths(text, hideRoots));
  if (err instanceof PipelineError) return { code: err.code, message: clean(err.message) };
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
