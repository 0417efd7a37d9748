import { detailPairs } from '../format.ts';

/** An operator action's detail, readable: `from: active · note: …`. */
export function Detail({ detail }: { detail: Record<string, unknown> | null }) {
  const pairs = detailPairs(detail);
  if (!pairs.length) return null;
  return (
    <span className="detail small">
      {pairs.map(([k, v]) => (
        <span key={k}>
          <b>{k}</b> {v}
        </span>
      ))}
    </span>
  );
}
