import { useState } from 'react';
import { type Agent, api, type JobType } from '../api.ts';
import { AgentStateBadge, Badge } from '../components/Badge.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { Detail } from '../components/Detail.tsx';
import { JobLink } from '../components/Link.tsx';
import { ProgressBar, progressOf } from '../components/ProgressBar.tsx';
import { Time } from '../components/Time.tsx';
import { formatBytes, formatDuration, formatMiB, secondsBetween } from '../format.ts';
import { useAction, useQuery } from '../hooks.ts';

/** One agent: what it is, what it can do, what it runs, and the operators' moves on it. */
export function AgentCard({ agent }: { agent: Agent }) {
  const { busy, run } = useAction();
  const retired = agent.state === 'retired';
  // An enrolled host has a row before it registers: no version, no work kinds yet.
  const announced = agent.version !== null || agent.work_kinds.length > 0;
  const id = { agent_id: agent.id };
  return (
    <article className={`card agent agent-${agent.state}`} data-agent-id={agent.id}>
      <div className="card-head">
        <h3 className="mono">{agent.id}</h3>
        <AgentStateBadge state={agent.state} />
        {agent.rotate_requested && (
          <Badge tone="amber" title="the agent trades its credential at its next announcement">
            rotation requested
          </Badge>
        )}
        <span className="spacer" />
        <span className="muted small" title={`last seen ${agent.last_seen_at}`}>
          {agent.hostname ? `${agent.hostname} · ` : ''}seen {formatDuration(agent.seconds_since_seen)} ago
        </span>
      </div>

      {announced ? <Capabilities agent={agent} /> : <p className="muted">Enrolled; its capabilities arrive with its first announcement.</p>}

      <Tags agent={agent} />

      <div className="current">
        {agent.running.length ? (
          agent.running.map((r) => <Current key={r.attempt_id} current={r} />)
        ) : (
          <span className="muted">{retired ? 'retired' : 'no job running'}</span>
        )}
      </div>

      {agent.blocked.length > 0 && (
        <div className="blocked">
          <span className="label">Blocked:</span>
          {agent.blocked.map((b) => (
            <span key={b.job_type} className="blocked-item">
              <Badge tone="red">
                {b.job_type} · {b.failures} failures
              </Badge>
              <button
                type="button"
                disabled={busy}
                onClick={() => run(() => api.agents.clearBlock.mutate({ ...id, job_type: b.job_type as JobType }), `${agent.id} may take ${b.job_type} again`)}
              >
                Clear
              </button>
            </span>
          ))}
        </div>
      )}

      {!retired && (
        <div className="actions">
          {agent.control === 'active' ? (
            <button
              type="button"
              disabled={busy}
              onClick={() => run(() => api.agents.drain.mutate(id), `${agent.id} drains: it finishes its job and takes no new one`)}
            >
              Drain
            </button>
          ) : (
            <button type="button" disabled={busy} onClick={() => run(() => api.agents.resume.mutate(id), `${agent.id} takes work again`)}>
              Resume
            </button>
          )}
          <ConfirmButton
            label="Rotate credential"
            title={`Rotate ${agent.id}'s credential`}
            disabled={busy}
            onConfirm={() => run(() => api.agents.rotateCredential.mutate(id), `${agent.id} trades its credential at its next announcement`)}
          >
            The agent trades its credential for a new one at its next announcement (within 30 s while it runs); the old one keeps working for a short grace
            period.
          </ConfirmButton>
          <ConfirmButton
            label="Revoke credentials"
            title={`Revoke ${agent.id}'s credentials`}
            danger
            disabled={busy}
            onConfirm={() =>
              run(
                () => api.agents.revokeCredentials.mutate(id),
                (n) => `${n} credential(s) of ${agent.id} revoked`,
              )
            }
          >
            Every credential of <b>{agent.id}</b> stops working now ({agent.credentials} active). The host must be enrolled again to take work: use this for a
            lost or stolen host.
          </ConfirmButton>
          <ConfirmButton
            label="Retire"
            title={`Retire ${agent.id}`}
            danger
            disabled={busy}
            onConfirm={() => run(() => api.agents.retire.mutate(id), `${agent.id} retired`)}
          >
            <b>{agent.id}</b> is retired for good: its credentials are revoked now and the name is never used again. An attempt it still holds runs to its lease
            and is requeued.
          </ConfirmButton>
        </div>
      )}
      <History agentId={agent.id} />
    </article>
  );
}

function Capabilities({ agent }: { agent: Agent }) {
  return (
    <div className="badges caps">
      {agent.gpus.length === 0 && <Badge tone="grey">no GPU</Badge>}
      {agent.gpus.map((g) => (
        <Badge key={`${g.name}-${g.memory_mib}`} tone="blue">
          {g.name} · {formatMiB(g.memory_mib)}
        </Badge>
      ))}
      <Badge tone={agent.nvenc ? 'green' : 'grey'} title="h264_nvenc opened a session">
        {agent.nvenc ? 'NVENC' : 'no NVENC'}
      </Badge>
      <Badge tone={agent.cuda ? 'green' : 'grey'}>{agent.cuda ? 'CUDA' : 'no CUDA'}</Badge>
      {agent.whisper && (
        <Badge tone="plain" title={`compute type ${agent.whisper.compute_type}`}>
          whisper {agent.whisper.device} · {agent.whisper.models.join(', ') || 'no model'}
        </Badge>
      )}
      {agent.cpu_cores != null && <Badge>{agent.cpu_cores} cores</Badge>}
      {agent.free_disk_bytes != null && <Badge>{formatBytes(agent.free_disk_bytes)} free</Badge>}
      {agent.version && <Badge>v{agent.version}</Badge>}
      <span className="label">serves</span>
      {agent.work_kinds.map((k) => (
        <Badge key={k} tone="plain" title="work kind it serves">
          {k}
        </Badge>
      ))}
    </div>
  );
}

function Current({ current }: { current: Agent['running'][number] }) {
  const progress = progressOf(current.progress);
  return (
    <div className="current-job">
      <span>
        <JobLink id={current.job_id} /> {current.job_type} · {current.status} · for {formatDuration(secondsBetween(current.started_at, null))}
      </span>
      <ProgressBar fraction={progress?.fraction ?? 0} stage={progress?.stage ?? current.status} />
    </div>
  );
}

function Tags({ agent }: { agent: Agent }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState('');
  const { busy, run } = useAction();
  if (!editing)
    return (
      <div className="tags">
        <span className="label">Tags:</span>
        {agent.tags.length ? (
          agent.tags.map((t) => (
            <Badge key={t} tone="plain">
              #{t}
            </Badge>
          ))
        ) : (
          <span className="muted">none</span>
        )}
        {agent.state !== 'retired' && (
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setText(agent.tags.join(' '));
              setEditing(true);
            }}
          >
            edit
          </button>
        )}
      </div>
    );
  return (
    <form
      className="tags"
      onSubmit={async (e) => {
        e.preventDefault();
        const tags = text.split(/[\s,]+/).filter(Boolean);
        const saved = await run(
          () => api.agents.setTags.mutate({ agent_id: agent.id, tags }),
          (t) => `${agent.id} tags: ${t.join(', ') || 'none'}`,
        );
        if (saved) setEditing(false);
      }}
    >
      <label className="inline">
        Tags
        <input value={text} onChange={(e) => setText(e.target.value)} placeholder="gpu nvenc region-eu" aria-label="tags, separated by spaces" />
      </label>
      <button type="submit" className="primary" disabled={busy}>
        Save
      </button>
      <button type="button" onClick={() => setEditing(false)}>
        Cancel
      </button>
    </form>
  );
}

function History({ agentId }: { agentId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="history" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Operator history</summary>
      {open && <HistoryList agentId={agentId} />}
    </details>
  );
}

function HistoryList({ agentId }: { agentId: string }) {
  const { data, error } = useQuery(() => api.agents.history.query({ agent_id: agentId }), agentId);
  if (error) return <p className="load-error">{error}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  if (!data.length) return <p className="muted">No operator has acted on this agent.</p>;
  return (
    <table className="compact">
      <tbody>
        {data.map((a) => (
          <tr key={a.id}>
            <td>
              <Time at={a.at} />
            </td>
            <td>{a.operator}</td>
            <td>{a.action}</td>
            <td>
              <Detail detail={a.detail} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
