/**
 * A unique-constraint violation (SQLSTATE 23505), as postgres.js and PGlite raise it (drizzle may
 * wrap it in `cause`); with `constraint`, only a violation of that index.
 */
export function isUniqueViolation(e: unknown, constraint?: string): boolean {
  for (let c: unknown = e, depth = 0; c && typeof c === 'object' && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const err = c as { code?: unknown; constraint_name?: unknown; constraint?: unknown; message?: unknown };
    if (err.code !== '23505') continue;
    if (!constraint) return true;
    const named = err.constraint_name ?? err.constraint;
    return typeof named === 'string' ? named === constraint : String(err.message ?? '').includes(constraint);
  }
  return false;
}
