import { useState } from 'react';
import { api } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { Detail } from '../components/Detail.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { LoadError } from '../components/Empty.tsx';
import { JobLink } from '../components/Link.tsx';
import { Time } from '../components/Time.tsx';
import { useAction, useQuery, useSession } from '../hooks.ts';

/** Operators: who can log in, adding one (the token shown once), revoking one; and what everyone did. */
export function Operators() {
  const { operator } = useSession();
  const [tick, setTick] = useState(0);
  const refresh = () => setTick((t) => t + 1);
  const ops = useQuery(() => api.operators.list.query(), String(tick));
  const actions = useQuery(() => api.operators.actions.query({ limit: 100 }), String(tick));
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const { busy, run } = useAction();
  return (
    <section>
      <div className="page-head">
        <h1>Operators</h1>
        <span className="spacer" />
        <button type="button" onClick={refresh}>
          Refresh
        </button>
      </div>
      <LoadError error={ops.error} />
      {ops.data && (
        <table className="operators">
          <thead>
            <tr>
              <th>Name</th>
              <th>Added by</th>
              <th>Added</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {ops.data.map((o) => (
              <tr key={o.id}>
                <td>
                  <b>{o.name}</b> {o.name === operator && <span className="muted">(you)</span>}
                </td>
                <td>{o.created_by ?? ''}</td>
                <td>
                  <Time at={o.created_at} />
                </td>
                <td>
                  {o.revoked_at ? (
                    <Badge tone="dark">
                      revoked <Time at={o.revoked_at} />
                    </Badge>
                  ) : (
                    <Badge tone="green">active</Badge>
                  )}
                </td>
                <td>
                  {!o.revoked_at && o.name !== operator && (
                    <ConfirmButton
                      label="Revoke"
                      title={`Revoke ${o.name}`}
                      danger
                      disabled={busy}
                      onConfirm={async () => {
                        await run(() => api.operators.revoke.mutate({ name: o.name }), `${o.name} revoked`);
                        refresh();
                      }}
                    >
                      {o.name}'s token stops working and their console sessions end now.
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Add an operator</h2>
      <form
        className="inline"
        onSubmit={async (e) => {
          e.preventDefault();
          const r = await run(() => api.operators.create.mutate({ name: name.trim() }));
          if (r) {
            setCreated({ name: r.operator.name, token: r.token });
            setName('');
            refresh();
          }
        }}
      >
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="name (e.g. alice@example.com)"
          aria-label="new operator's name"
          className="wide"
          maxLength={64}
        />
        <button type="submit" className="primary" disabled={busy || !name.trim()}>
          Add operator
        </button>
      </form>
      {created && (
        <div className="callout">
          <p>
            <b>{created.name}</b>'s token, shown this once: hand it over privately.
          </p>
          <pre className="command" data-testid="operator-token">
            {created.token}
          </pre>
          <div className="actions">
            <CopyButton text={created.token} label="Copy token" />
            <button type="button" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}

      <h2>Recent actions</h2>
      <LoadError error={actions.error} />
      {actions.data && actions.data.length === 0 && <p className="empty">No operator has acted yet.</p>}
      {actions.data && actions.data.length > 0 && (
        <table className="actions-table">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>What</th>
              <th>On</th>
              <th>Detail</th>
            </tr>
          </thead>
          <tbody>
            {actions.data.map((a) => (
              <tr key={a.id}>
                <td>
                  <Time at={a.at} />
                </td>
                <td>{a.operator}</td>
                <td>{a.action}</td>
                <td>
                  {a.target_kind} {a.target_kind === 'job' ? <JobLink id={a.target_id} /> : <span className="mono">{a.target_id}</span>}
                </td>
                <td>
                  <Detail detail={a.detail} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
