import type { ReactNode } from 'react';
import { ACTIVE_STATUSES, api, TERMINAL_STATUSES, type JobStatus, type Timeline } from '../api.ts';
import { Badge, JobStatusBadge, LedgerStateBadge, OutcomeBadge } from '../components/Badge.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { Detail } from '../components/Detail.tsx';
import { Empty, LoadError } from '../components/Empty.tsx';
import { JobLink, Link } from '../components/Link.tsx';
import { ProgressBar } from '../components/ProgressBar.tsx';
import { Amount } from '../components/Amount.tsx';
import { Time } from '../components/Time.tsx';
import { formatAmount, formatBytes, formatDuration, secondsBetween, shortId } from '../format.ts';
import { useAction, useLive } from '../hooks.ts';

/** One job, everything about it, live: its events, attempts, outputs, money, operators' actions and children. */
export function JobPage({ id }: { id: string }) {
  const live = useLive<Timeline>((h) => api.jobs.watchTimeline.subscribe({ job_id: id }, h), id);
  const t = live.data;
  return (
    <section className="job-page">
      <div className="page-head">
        <Link to={{ page: 'jobs' }}>← Jobs</Link>
      </div>
      <LoadError error={live.error} />
      {!t && !live.error && <p className="muted">Loading…</p>}
      {t && <JobDetail t={t} />}
    </section>
  );
}

function JobDetail({ t }: { t: Timeline }) {
  const { job } = t;
  const { busy, run } = useAction();
  const status = job.status as JobStatus;
  const active = ACTIVE_STATUSES.includes(status);
  const canCancel = !TERMINAL_STATUSES.includes(status);
  return (
    <>
      <div className="page-head">
        <h1>
          {job.job_type} <span className="mono muted">{job.id}</span>
        </h1>
        <span data-testid="job-status">
          <JobStatusBadge status={job.status} />
        </span>
        {active && !job.current_attempt_id && <Badge tone="amber">queued</Badge>}
        <span className="spacer" />
        {canCancel && (
          <ConfirmButton
            label="Cancel job"
            title="Cancel this job"
            danger
            disabled={busy}
            note="Note (recorded with the cancel, shown to the caller)"
            onConfirm={(note) => run(() => api.jobs.cancel.mutate({ job_id: job.id, note }), 'Job cancelled')}
          >
            The job fails as <code>operator_cancelled</code>; a paid job is refunded. A running attempt is stopped.
          </ConfirmButton>
        )}
        {status === 'failed' && (
          <button type="button" className="primary" disabled={busy} onClick={() => run(() => api.jobs.retry.mutate({ job_id: job.id }), 'Job queued again')}>
            Retry
          </button>
        )}
      </div>

      {active && (
        <div className="job-progress">
          {job.current_attempt_id ? (
            <ProgressBar fraction={job.progress?.fraction ?? 0} stage={job.progress?.stage ?? job.status} />
          ) : (
            <span className="muted">Waiting for an agent (attempt {job.attempt_count} so far).</span>
          )}
        </div>
      )}

      <dl className="facts">
        <Fact label="File">{job.original_filename || '–'}</Fact>
        <Fact label="Payment">
          {job.payment_status}
          {job.payment_rail ? ` · ${job.payment_rail}` : ''}
          {job.price_cents > 0 ? ` · ${formatAmount('card', String(job.price_cents))}` : ''}
        </Fact>
        <Fact label="Created">
          <Time at={job.created_at} />
        </Fact>
        <Fact label="Updated">
          <Time at={job.updated_at} />
        </Fact>
        <Fact label="Ended">
          <Time at={job.completed_at} />
        </Fact>
        <Fact label="Took">{job.completed_at ? formatDuration(secondsBetween(job.created_at, job.completed_at)) : '–'}</Fact>
        <Fact label="Expires">
          <Time at={job.expires_at} />
        </Fact>
        <Fact label="Lease until">
          <Time at={job.lease_expires_at} />
        </Fact>
        <Fact label="Attempts">{job.attempt_count}</Fact>
        <Fact label="Session">
          {job.session_id ? (
            <span className="mono" title={job.session_id}>
              {shortId(job.session_id)}
            </span>
          ) : (
            '–'
          )}
        </Fact>
        <Fact label="Parent">{job.parent_job_id ? <JobLink id={job.parent_job_id} /> : '–'}</Fact>
        <Fact label="Bundle">{job.bundle_job_id ? <JobLink id={job.bundle_job_id} /> : '–'}</Fact>
      </dl>
      {job.error_code && (
        <p className="job-error">
          <b>{job.error_code}</b>: {job.error_message}
        </p>
      )}

      <h2>Events</h2>
      <table className="events">
        <thead>
          <tr>
            <th>At</th>
            <th>From</th>
            <th>To</th>
            <th>Reason</th>
            <th>Attempt</th>
          </tr>
        </thead>
        <tbody>
          {t.events.map((e) => (
            <tr key={e.id}>
              <td>
                <Time at={e.at} />
              </td>
              <td>{e.from ?? <span className="muted">–</span>}</td>
              <td>
                <JobStatusBadge status={e.to} />
              </td>
              <td>{e.reason}</td>
              <td className="mono small">{e.attempt_id ? shortId(e.attempt_id) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Attempts</h2>
      {t.attempts.length === 0 ? (
        <Empty>No agent has claimed this job.</Empty>
      ) : (
        <table className="attempts">
          <thead>
            <tr>
              <th>Attempt</th>
              <th>Agent</th>
              <th>Started</th>
              <th>Ended</th>
              <th>Took</th>
              <th>Outcome</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {t.attempts.map((a) => (
              <tr key={a.id}>
                <td className="mono small" title={a.id}>
                  {shortId(a.id)}
                </td>
                <td className="mono">{a.agent_id}</td>
                <td>
                  <Time at={a.started_at} />
                </td>
                <td>
                  <Time at={a.ended_at} />
                </td>
                <td>{formatDuration(secondsBetween(a.started_at, a.ended_at))}</td>
                <td>
                  <OutcomeBadge outcome={a.outcome} />
                </td>
                <td title={a.error_message ?? ''}>{a.error_code ? `${a.error_code}: ${a.error_message ?? ''}` : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Outputs</h2>
      {t.outputs.length === 0 ? (
        <Empty>None yet.</Empty>
      ) : (
        <table className="outputs">
          <thead>
            <tr>
              <th>Role</th>
              <th>Type</th>
              <th className="num">Size</th>
              <th>Stored as</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {t.outputs.map((o) => (
              <tr key={`${o.role}-${o.storage_key ?? o.external_url ?? ''}`}>
                <td>{o.role}</td>
                <td>{o.content_type ?? ''}</td>
                <td className="num">{formatBytes(o.bytes)}</td>
                <td className="mono small">{o.external_url ?? o.storage_key ?? ''}</td>
                <td>
                  <Time at={o.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Money</h2>
      {t.ledger.length === 0 ? (
        <Empty>No ledger rows (unpaid, or billing is off).</Empty>
      ) : (
        <table className="ledger">
          <thead>
            <tr>
              <th>#</th>
              <th>At</th>
              <th>Rail</th>
              <th>Kind</th>
              <th>State</th>
              <th className="num">Amount</th>
              <th>Reference</th>
              <th>Last error</th>
            </tr>
          </thead>
          <tbody>
            {t.ledger.map((l) => (
              <tr key={l.id}>
                <td>{l.id}</td>
                <td>
                  <Time at={l.created_at} />
                </td>
                <td>{l.rail}</td>
                <td>{l.kind}</td>
                <td>
                  <LedgerStateBadge state={l.state} />
                </td>
                <td className="num">
                  <Amount rail={l.rail} amount={l.amount} currency={l.currency} />
                </td>
                <td className="mono small">{l.chain_tx_hash ?? l.reference ?? ''}</td>
                <td>{l.last_error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Operator actions</h2>
      {t.actions.length === 0 ? (
        <Empty>None.</Empty>
      ) : (
        <table className="actions-table">
          <tbody>
            {t.actions.map((a) => (
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
      )}

      {t.children.length > 0 && (
        <>
          <h2>Children</h2>
          <table className="children">
            <tbody>
              {t.children.map((c) => (
                <tr key={c.id}>
                  <td>
                    <JobLink id={c.id} />
                  </td>
                  <td>{c.job_type}</td>
                  <td>
                    <JobStatusBadge status={c.status} />
                  </td>
                  <td>
                    {c.progress && !TERMINAL_STATUSES.includes(c.status as JobStatus) && (
                      <ProgressBar fraction={c.progress.fraction} stage={c.progress.stage} compact />
                    )}
                  </td>
                  <td>{c.error_code ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      <details className="raw">
        <summary>Parameters and media</summary>
        <pre>{JSON.stringify({ params: job.params, media: job.media }, null, 2)}</pre>
      </details>
    </>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
