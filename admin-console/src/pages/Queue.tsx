import type { Agent, QueueKind } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { LoadError } from '../components/Empty.tsx';
import { Time } from '../components/Time.tsx';
import { formatDuration } from '../format.ts';

/** Per work kind: what waits, since when, what runs, the tags it needs and the agents that could take it. */
export function Queue({ queue, agents, error }: { queue: QueueKind[] | undefined; agents: Agent[] | undefined; error: string | null }) {
  return (
    <section>
      <div className="page-head">
        <h1>Queue</h1>
        <span className="muted">per work kind, live</span>
      </div>
      <LoadError error={error} />
      {!queue && !error && <p className="muted">Loading…</p>}
      {queue && (
        <table className="queue">
          <thead>
            <tr>
              <th>Work kind</th>
              <th className="num">Queued</th>
              <th className="num">Running</th>
              <th>Oldest wait</th>
              <th>Required tags</th>
              <th>Agents that can take it</th>
            </tr>
          </thead>
          <tbody>
            {queue.map((q) => {
              const able = (agents ?? []).filter((a) => a.work_kinds.includes(q.kind) && q.required_tags.every((t) => a.tags.includes(t)));
              const taking = able.filter((a) => a.state === 'online' || a.state === 'busy');
              const stuck = q.queued > 0 && taking.length === 0;
              return (
                <tr key={q.kind} data-kind={q.kind} className={stuck ? 'warn-row' : ''}>
                  <td>
                    <b>{q.kind}</b>
                  </td>
                  <td className="num queued">{q.queued}</td>
                  <td className="num running">{q.running}</td>
                  <td>
                    {q.queued > 0 ? (
                      <>
                        {formatDuration(q.oldest_wait_seconds)}{' '}
                        <span className="muted small">
                          (since <Time at={q.oldest_queued_at} />)
                        </span>
                      </>
                    ) : (
                      <span className="muted">–</span>
                    )}
                  </td>
                  <td>{q.required_tags.length ? q.required_tags.map((t) => <Badge key={t}>#{t}</Badge>) : <span className="muted">none</span>}</td>
                  <td>
                    {taking.length} taking work
                    {able.length > taking.length && <span className="muted"> · {able.length - taking.length} drained or offline</span>}
                    {stuck && (
                      <>
                        {' '}
                        <Badge tone="red">nothing can take these jobs</Badge>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
