import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';
import { errorText, isUnauthorized } from './api.ts';

/** What a page tells the operator after an action: a line at the top that goes away by itself. */
export interface Notice {
  id: number;
  kind: 'ok' | 'error';
  text: string;
}

export interface Session {
  operator: string;
  /** Shows a notice. */
  notify: (kind: Notice['kind'], text: string) => void;
  /** The session ended (logged out elsewhere, expired, revoked): back to the log-in page. */
  signedOut: () => void;
}

export const SessionContext = createContext<Session>({ operator: '', notify: () => {}, signedOut: () => {} });
export const useSession = (): Session => useContext(SessionContext);

interface Handlers<T> {
  onData: (value: T) => void;
  onError: (err: unknown) => void;
}

export interface Live<T> {
  data: T | undefined;
  error: string | null;
}

/**
 * A live view: subscribes with `subscribe` (a tRPC subscription over SSE), keeps the latest value,
 * and subscribes again whenever `key` changes (a new input). The browser reconnects a dropped
 * stream by itself; a stream that ended with an error is opened again after a pause, keeping
 * the last value on screen meanwhile (with the error, so the page can say it is not live).
 */
export function useLive<T>(subscribe: (h: Handlers<T>) => { unsubscribe: () => void }, key: string): Live<T> {
  const [state, setState] = useState<Live<T>>({ data: undefined, error: null });
  const { signedOut } = useSession();
  const subscribeRef = useRef(subscribe);
  subscribeRef.current = subscribe;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names the input; the latest subscribe() reads it.
  useEffect(() => {
    let sub: { unsubscribe: () => void } | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let closed = false;
    const open = () => {
      sub = subscribeRef.current({
        onData: (data) => setState({ data, error: null }),
        onError: (err) => {
          if (isUnauthorized(err)) return signedOut();
          setState((s) => ({ data: s.data, error: errorText(err) }));
          sub?.unsubscribe();
          if (!closed) retry = setTimeout(open, RESUBSCRIBE_MS);
        },
      });
    };
    setState((s) => ({ data: s.data, error: null }));
    open();
    return () => {
      closed = true;
      clearTimeout(retry);
      sub?.unsubscribe();
    };
  }, [key, signedOut]);
  return state;
}

/** How long a live view waits before opening a stream that ended with an error again. */
const RESUBSCRIBE_MS = 3_000;

/** A one-off read (not live): the value, a reload function, and the last error. */
export function useQuery<T>(load: () => Promise<T>, key: string): { data: T | undefined; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const { signedOut } = useSession();
  const loadRef = useRef(load);
  loadRef.current = load;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` and `tick` say when to read again.
  useEffect(() => {
    let live = true;
    loadRef.current().then(
      (v) => {
        if (!live) return;
        setData(v);
        setError(null);
      },
      (err: unknown) => {
        if (!live) return;
        if (isUnauthorized(err)) signedOut();
        else setError(errorText(err));
      },
    );
    return () => {
      live = false;
    };
  }, [key, tick, signedOut]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, reload };
}

/**
 * Runs an operator's action: `busy` while it runs, a notice with `done` (or the API's refusal)
 * after. Resolves to the action's value, or undefined when it failed.
 */
export function useAction(): { busy: boolean; run: <T>(action: () => Promise<T>, done?: string | ((v: T) => string)) => Promise<T | undefined> } {
  const [busy, setBusy] = useState(false);
  const { notify, signedOut } = useSession();
  const run = useCallback(
    async <T>(action: () => Promise<T>, done?: string | ((v: T) => string)): Promise<T | undefined> => {
      setBusy(true);
      try {
        const v = await action();
        if (done) notify('ok', typeof done === 'string' ? done : done(v));
        return v;
      } catch (err) {
        if (isUnauthorized(err)) signedOut();
        else notify('error', errorText(err));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [notify, signedOut],
  );
  return { busy, run };
}

/** Re-renders every `ms` (relative times such as "waiting 12 s" keep counting between updates). */
export function useTick(ms: number): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), ms);
    return () => clearInterval(timer);
  }, [ms]);
}
