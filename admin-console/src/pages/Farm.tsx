import { useState } from 'react';
import { type Agent, api } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { Empty, LoadError } from '../components/Empty.tsx';
import { Time } from '../components/Time.tsx';
import { useAction, useQuery } from '../hooks.ts';
import { AddHost } from './AddHost.tsx';
import { AgentCard } from './AgentCard.tsx';

/** The farm: one card per agent (live), adding hosts, and the enrollment tokens handed out. */
export function Farm({ agents, error }: { agents: Agent[] | undefined; error: string | null }) {
  const [adding, setAdding] = useState(false);
  const [tokensTick, setTokensTick] = useState(0);
  return (
    <section>
      <div className="page-head">
        <h1>Farm</h1>
        <span className="muted">{agents ? `${agents.length} agent${agents.length === 1 ? '' : 's'}` : ''}</span>
        <span className="spacer" />
        <button type="button" className="primary" onClick={() => setAdding(true)}>
          Add a host
        </button>
      </div>
      <LoadError error={error} />
      {!agents && !error && <p className="muted">Loading…</p>}
      {agents && agents.length === 0 && <Empty>No agent has joined yet. Add a host to start one.</Empty>}
      <div className="cards">
        {agents?.map((a) => (
          <AgentCard key={a.id} agent={a} />
        ))}
      </div>
      <Enrollments tick={tokensTick} />
      {adding && (
        <AddHost
          onClose={() => {
            setAdding(false);
            setTokensTick((t) => t + 1);
          }}
        />
      )}
    </section>
  );
}

function Enrollments({ tick }: { tick: number }) {
  const { data, error, reload } = useQuery(() => api.enrollment.list.query(), String(tick));
  const { busy, run } = useAction();
  const now = Date.now();
  return (
    <details className="enrollments">
      <summary>Enrollment tokens {data ? `(${data.filter((e) => !e.used_at && !e.revoked_at && Date.parse(e.expires_at) > now).length} unused)` : ''}</summary>
      <LoadError error={error} />
      {data && data.length === 0 && <Empty>None minted yet.</Empty>}
      {data && data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Created</th>
              <th>By</th>
              <th>Agent name</th>
              <th>Tags</th>
              <th>Expires</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {data.map((e) => {
              const usable = !e.used_at && !e.revoked_at && Date.parse(e.expires_at) > now;
              return (
                <tr key={e.id}>
                  <td>
                    <Time at={e.created_at} />
                  </td>
                  <td>{e.created_by}</td>
                  <td className="mono">{e.agent_id ?? <span className="muted">host's name</span>}</td>
                  <td>{e.tags.join(' ')}</td>
                  <td>
                    <Time at={e.expires_at} />
                  </td>
                  <td>
                    {e.used_at ? (
                      <Badge tone="green">used by {e.used_by}</Badge>
                    ) : e.revoked_at ? (
                      <Badge tone="dark">revoked</Badge>
                    ) : usable ? (
                      <Badge tone="blue">unused</Badge>
                    ) : (
                      <Badge tone="grey">expired</Badge>
                    )}
                  </td>
                  <td>
                    {usable && (
                      <ConfirmButton
                        label="Revoke"
                        title="Revoke this enrollment token"
                        danger
                        disabled={busy}
                        onConfirm={async () => {
                          await run(() => api.enrollment.revoke.mutate({ id: e.id }), 'Enrollment token revoked');
                          reload();
                        }}
                      >
                        No host can join with it after this.
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </details>
  );
}
