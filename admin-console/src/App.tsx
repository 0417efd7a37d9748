import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { type Agent, api, errorText, isUnauthorized, logOut, type QueueKind } from './api.ts';
import { type Notice, type Session, SessionContext, useLive, useSession } from './hooks.ts';
import { type Route, useRoute } from './nav.ts';
import { Farm } from './pages/Farm.tsx';
import { JobPage } from './pages/JobPage.tsx';
import { Jobs } from './pages/Jobs.tsx';
import { Login } from './pages/Login.tsx';
import { Money } from './pages/Money.tsx';
import { Operators } from './pages/Operators.tsx';
import { Queue } from './pages/Queue.tsx';
import { TopBar } from './TopBar.tsx';

/** Who is logged in: asked of the API first; nobody → the log-in page. */
export function App() {
  const [operator, setOperator] = useState<{ name: string | null; error?: string } | undefined>(undefined);
  const [attempt, setAttempt] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` asks again after a failure.
  useEffect(() => {
    api.operators.me.query().then(
      (me) => setOperator({ name: me.name }),
      (err: unknown) => setOperator(isUnauthorized(err) ? { name: null } : { name: null, error: errorText(err) }),
    );
  }, [attempt]);
  const signedOut = useCallback(() => setOperator({ name: null }), []);
  if (operator === undefined) return <p className="loading">Loading…</p>;
  if (operator.error)
    return (
      <main className="login">
        <div className="login-box">
          <p className="form-error">The coordinator did not answer: {operator.error}</p>
          <button type="button" onClick={() => setAttempt((a) => a + 1)}>
            Try again
          </button>
        </div>
      </main>
    );
  if (operator.name === null) return <Login onLoggedIn={(name) => setOperator({ name })} />;
  return <Console operator={operator.name} onSignedOut={signedOut} />;
}

function Console({ operator, onSignedOut }: { operator: string; onSignedOut: () => void }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const nextId = useRef(1);
  const notify = useCallback((kind: Notice['kind'], text: string) => {
    const id = nextId.current++;
    setNotices((n) => [...n.slice(-3), { id, kind, text }]);
    setTimeout(() => setNotices((n) => n.filter((x) => x.id !== id)), kind === 'error' ? 10_000 : 4_000);
  }, []);
  const session = useMemo<Session>(() => ({ operator, notify, signedOut: onSignedOut }), [operator, notify, onSignedOut]);
  return (
    <SessionContext.Provider value={session}>
      <Shell notices={notices} dismiss={(id) => setNotices((n) => n.filter((x) => x.id !== id))} />
    </SessionContext.Provider>
  );
}

function Shell({ notices, dismiss }: { notices: Notice[]; dismiss: (id: number) => void }) {
  const route: Route = useRoute();
  const { operator, signedOut } = useSession();
  // The farm and the queue are live on every page: the top bar counts them.
  const agents = useLive<Agent[]>((h) => api.agents.watch.subscribe(undefined, h), 'agents');
  const queue = useLive<QueueKind[]>((h) => api.queue.watch.subscribe(undefined, h), 'queue');
  return (
    <>
      <TopBar
        route={route}
        operator={operator}
        agents={agents.data}
        queue={queue.data}
        live={!agents.error && !queue.error}
        onLogOut={() => {
          void logOut().finally(signedOut);
        }}
      />
      <div className="notices" aria-live="polite">
        {notices.map((n) => (
          <div key={n.id} className={`notice notice-${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
            <span>{n.text}</span>
            <button type="button" className="link-button" onClick={() => dismiss(n.id)} aria-label="dismiss">
              ✕
            </button>
          </div>
        ))}
      </div>
      <main className="page">
        {route.page === 'farm' && <Farm agents={agents.data} error={agents.error} />}
        {route.page === 'queue' && <Queue queue={queue.data} agents={agents.data} error={queue.error} />}
        {route.page === 'jobs' && <Jobs agents={agents.data} />}
        {route.page === 'job' && <JobPage key={route.id} id={route.id} />}
        {route.page === 'money' && <Money />}
        {route.page === 'operators' && <Operators />}
      </main>
    </>
  );
}
