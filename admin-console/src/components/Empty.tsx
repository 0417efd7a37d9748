import type { ReactNode } from 'react';

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** A failed read, in place of what it would have shown. */
export function LoadError({ error }: { error: string | null }) {
  return error ? <p className="load-error">Could not load: {error}</p> : null;
}
