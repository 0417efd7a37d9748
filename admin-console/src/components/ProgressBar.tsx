/** A job's progress: the bar and, beside it, the stage and percentage. */
export function ProgressBar({ fraction, stage, compact = false }: { fraction: number; stage?: string | null | undefined; compact?: boolean }) {
  const pct = Math.round(Math.min(1, Math.max(0, fraction)) * 100);
  return (
    <div className={compact ? 'progress progress-compact' : 'progress'}>
      <div className="progress-track" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} aria-label={stage ?? 'progress'}>
        <div className="progress-fill" style={{ width: `${pct}%` }} />
      </div>
      <span className="progress-label">
        {stage ? `${stage} ` : ''}
        {pct}%
      </span>
    </div>
  );
}

/** Progress as the API stores it (`{stage, fraction, at}`), or nothing when it is not that. */
export function progressOf(p: unknown): { stage: string; fraction: number } | null {
  if (!p || typeof p !== 'object') return null;
  const { stage, fraction } = p as { stage?: unknown; fraction?: unknown };
  return typeof fraction === 'number' ? { stage: typeof stage === 'string' ? stage : '', fraction } : null;
}
