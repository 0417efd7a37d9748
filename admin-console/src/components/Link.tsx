import type { MouseEvent, ReactNode } from 'react';
import { navigate, pathOf, type Route } from '../nav.ts';

/** An in-console link: a real href (open in a new tab works), followed without a reload. */
export function Link({ to, children, className, title }: { to: Route; children: ReactNode; className?: string; title?: string }) {
  const href = pathOf(to);
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={href} onClick={onClick} className={className} title={title}>
      {children}
    </a>
  );
}

/** A job id, shortened, linking to its page. */
export function JobLink({ id }: { id: string }) {
  return (
    <Link to={{ page: 'job', id }} className="mono" title={id}>
      {id.slice(0, 8)}
    </Link>
  );
}
