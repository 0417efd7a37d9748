import type { Agent, QueueKind } from './api.ts';
import { Link } from './components/Link.tsx';
import { type Route, TABS } from './nav.ts';

/** The bar on every page: the sections, the farm at a glance, who is logged in. */
export function TopBar(props: {
  route: Route;
  operator: string;
  agents: Agent[] | undefined;
  queue: QueueKind[] | undefined;
  live: boolean;
  onLogOut: () => void;
}) {
  const count = (s: Agent['state']) => props.agents?.filter((a) => a.state === s).length ?? 0;
  const queued = props.queue?.reduce((n, q) => n + q.queued, 0) ?? 0;
  const current = props.route.page === 'job' ? 'jobs' : props.route.page;
  const draining = count('draining');
  return (
    <header className="topbar">
      <div className="brand">
        cutroom <span className="muted">operators</span>
      </div>
      <nav className="tabs">
        {TABS.map((t) => (
          <Link key={t.page} to={{ page: t.page }} className={t.page === current ? 'tab active' : 'tab'}>
            {t.label}
          </Link>
        ))}
      </nav>
      <div className="counts" data-testid="counts">
        <span className="count count-online" title="agents live and idle">
          <b>{count('online')}</b> online
        </span>
        <span className="count count-busy" title="agents running an attempt">
          <b>{count('busy')}</b> busy
        </span>
        {draining > 0 && (
          <span className="count count-draining" title="agents finishing an attempt, then stopping">
            <b>{draining}</b> draining
          </span>
        )}
        <span className="count count-drained" title="agents told to stop, idle">
          <b>{count('drained')}</b> drained
        </span>
        <span className="count count-offline" title="agents not seen for 90 s">
          <b>{count('offline')}</b> offline
        </span>
        <span className="count count-queued" title="jobs waiting for an agent">
          <b>{queued}</b> queued
        </span>
      </div>
      <div className="who">
        <span className={props.live ? 'live-dot on' : 'live-dot'} title={props.live ? 'live' : 'reconnecting…'} />
        <span className="operator">{props.operator}</span>
        <button type="button" onClick={props.onLogOut}>
          Log out
        </button>
      </div>
    </header>
  );
}
