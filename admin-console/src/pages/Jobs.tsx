import { useMemo, useState } from 'react';
import { ACTIVE_STATUSES, type Agent, api, JOB_STATUSES, JOB_TYPES, type JobFilter, type JobPage, type JobStatus, type JobType } from '../api.ts';
import { Badge, JobStatusBadge } from '../components/Badge.tsx';
import { Empty, LoadError } from '../components/Empty.tsx';
import { JobLink, Link } from '../components/Link.tsx';
import { ProgressBar } from '../components/ProgressBar.tsx';
import { Time } from '../components/Time.tsx';
import { formatAmount, formatDuration, secondsBetween } from '../format.ts';
import { useAction, useLive, useTick } from '../hooks.ts';
import { navigate } from '../nav.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Filters {
  status: '' | 'active' | JobStatus;
  type: '' | JobType;
  agent: string;
  session: string;
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { status: '', type: '', agent: '', session: '', from: '', to: '' };

/** `<input type="datetime-local">` (local time) → ISO, or undefined when empty or invalid. */
function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const t = Date.parse(local);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

function filterOf(f: Filters): JobFilter {
  const status: JobStatus[] | undefined = f.status === 'active' ? [...ACTIVE_STATUSES] : f.status ? [f.status] : undefined;
  return {
    limit: 50,
    ...(status && { status }),
    ...(f.type && { job_type: [f.type] }),
    ...(f.agent && { agent_id: f.agent }),
    ...(UUID.test(f.session.trim()) && { session_id: f.session.trim().toLowerCase() }),
    ...(isoOf(f.from) && { created_from: isoOf(f.from) }),
    ...(isoOf(f.to) && { created_to: isoOf(f.to) }),
  };
}

/** Jobs, newest first, filtered; the first page is live, older pages are read once. */
export function Jobs({ agents }: { agents: Agent[] | undefined }) {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  useTick(1000);
  const filter = useMemo(() => filterOf(filters), [filters]);
  const key = JSON.stringify(filter);
  const live = useLive<JobPage>((h) => api.jobs.watchList.subscribe(filter, h), key);
  const [older, setOlder] = useState<{ key: string; pages: JobPage[] } | null>(null);
  const { busy, run } = useAction();
  const olderPages = older?.key === key ? older.pages : [];
  const pages = live.data ? [live.data, ...olderPages] : [];
  const jobs = pages.flatMap((p) => p.jobs);
  const next = pages.at(-1)?.next ?? null;
  const runningOn = new Map((agents ?? []).flatMap((a) => a.running.map((r) => [r.job_id, a.id] as const)));
  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }));
  const [jobId, setJobId] = useState('');
  const sessionInvalid = filters.session.trim() !== '' && !UUID.test(filters.session.trim());

  return (
    <section>
      <div className="page-head">
        <h1>Jobs</h1>
        <span className="muted">newest first · live</span>
        <span className="spacer" />
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            if (UUID.test(jobId.trim())) navigate({ page: 'job', id: jobId.trim().toLowerCase() });
          }}
        >
          <input value={jobId} onChange={(e) => setJobId(e.target.value)} placeholder="job id" aria-label="open a job by id" className="mono" />
          <button type="submit" disabled={!UUID.test(jobId.trim())}>
            Open
          </button>
        </form>
      </div>

      <div className="filters">
        <label>
          Status
          <select value={filters.status} onChange={(e) => set({ status: e.target.value as Filters['status'] })} name="status">
            <option value="">any</option>
            <option value="active">queued or running</option>
            {JOB_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select value={filters.type} onChange={(e) => set({ type: e.target.value as Filters['type'] })} name="type">
            <option value="">any</option>
            {JOB_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <select value={filters.agent} onChange={(e) => set({ agent: e.target.value })} name="agent">
            <option value="">any</option>
            {(agents ?? []).map((a) => (
              <option key={a.id} value={a.id}>
                {a.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Session
          <input
            value={filters.session}
            onChange={(e) => set({ session: e.target.value })}
            placeholder="session id"
            className={sessionInvalid ? 'mono invalid' : 'mono'}
            name="session"
            title={sessionInvalid ? 'a session id is a UUID' : ''}
          />
        </label>
        <label>
          From
          <input type="datetime-local" value={filters.from} onChange={(e) => set({ from: e.target.value })} name="from" />
        </label>
        <label>
          To
          <input type="datetime-local" value={filters.to} onChange={(e) => set({ to: e.target.value })} name="to" />
        </label>
        <button type="button" onClick={() => setFilters(NO_FILTERS)} disabled={JSON.stringify(filters) === JSON.stringify(NO_FILTERS)}>
          Clear filters
        </button>
      </div>

      <LoadError error={live.error} />
      {!live.data && !live.error && <p className="muted">Loading…</p>}
      {live.data && jobs.length === 0 && <Empty>No job matches.</Empty>}
      {jobs.length > 0 && (
        <table className="jobs">
          <thead>
            <tr>
              <th>Created</th>
              <th>Job</th>
              <th>Type</th>
              <th>Status</th>
              <th>Progress</th>
              <th>Agent</th>
              <th className="num">Attempts</th>
              <th>Payment</th>
              <th>File</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => {
              const active = (ACTIVE_STATUSES as readonly string[]).includes(j.status);
              const queued = active && !j.current_attempt_id;
              return (
                <tr key={j.id} data-job-id={j.id}>
                  <td>
                    <Time at={j.created_at} />
                  </td>
                  <td>
                    <JobLink id={j.id} />
                  </td>
                  <td>{j.job_type}</td>
                  <td className="status">
                    <JobStatusBadge status={j.status} />
                    {queued && <Badge tone="amber">queued</Badge>}
                  </td>
                  <td className="progress-cell">
                    {active && j.current_attempt_id ? (
                      <ProgressBar fraction={j.progress?.fraction ?? 0} stage={j.progress?.stage ?? 'starting'} compact />
                    ) : queued ? (
                      <span className="muted small">waiting {formatDuration(secondsBetween(j.updated_at, null))}</span>
                    ) : j.completed_at ? (
                      <span className="muted small">took {formatDuration(secondsBetween(j.created_at, j.completed_at))}</span>
                    ) : null}
                  </td>
                  <td className="mono">{runningOn.get(j.id) ?? j.agent_id ?? ''}</td>
                  <td className="num">{j.attempt_count}</td>
                  <td>
                    {j.payment_status}
                    {j.price_cents > 0 && <span className="muted small"> · {formatAmount('card', String(j.price_cents))}</span>}
                  </td>
                  <td className="filename" title={j.original_filename}>
                    <Link to={{ page: 'job', id: j.id }}>{j.original_filename || '–'}</Link>
                  </td>
                  <td className="error-cell" title={j.error_message ?? ''}>
                    {j.error_code ?? ''}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <div className="actions">
        {next && (
          <button
            type="button"
            disabled={busy}
            onClick={async () => {
              const page = await run(() => api.jobs.list.query({ ...filter, before: next }));
              if (page) setOlder({ key, pages: [...olderPages, page] });
            }}
          >
            Older jobs
          </button>
        )}
        {olderPages.length > 0 && (
          <button type="button" onClick={() => setOlder(null)}>
            Newest only
          </button>
        )}
      </div>
    </section>
  );
}
