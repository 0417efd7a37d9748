import { formatFullTime, formatTime } from '../format.ts';

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">–</span>;
  return (
    <time dateTime={at} title={formatFullTime(at)}>
      {formatTime(at)}
    </time>
  );
}
