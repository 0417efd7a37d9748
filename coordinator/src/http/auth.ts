import type { FastifyRequest } from 'fastify';

/** The bearer token of a request, or null. Other schemes (Payment) are not session tokens. */
export function bearerToken(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}
