import { useEffect, useState } from 'react';

/** The console's pages, each at its own path under /admin (the server answers the same page for all). */
export type Route = { page: 'farm' } | { page: 'queue' } | { page: 'jobs' } | { page: 'job'; id: string } | { page: 'money' } | { page: 'operators' };

export const TABS = [
  { page: 'farm', label: 'Farm' },
  { page: 'queue', label: 'Queue' },
  { page: 'jobs', label: 'Jobs' },
  { page: 'money', label: 'Money' },
  { page: 'operators', label: 'Operators' },
] as const;

export function parseRoute(path: string): Route {
  const parts = path
    .replace(/^\/admin\/?/, '')
    .split('/')
    .filter(Boolean);
  const [first, second] = parts;
  if (first === 'jobs' && second) return { page: 'job', id: decodeURIComponent(second) };
  if (first === 'queue' || first === 'jobs' || first === 'money' || first === 'operators') return { page: first };
  return { page: 'farm' };
}

export function pathOf(route: Route): string {
  switch (route.page) {
    case 'farm':
      return '/admin';
    case 'job':
      return `/admin/jobs/${encodeURIComponent(route.id)}`;
    default:
      return `/admin/${route.page}`;
  }
}

const listeners = new Set<() => void>();

/** Goes to a page without reloading (history.pushState); back and forward work as usual. */
export function navigate(route: Route | string): void {
  const path = typeof route === 'string' ? route : pathOf(route);
  if (path !== location.pathname) history.pushState(null, '', path);
  window.scrollTo(0, 0);
  for (const l of listeners) l();
}

/** The route of the current URL, updated on navigate() and on back/forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}
