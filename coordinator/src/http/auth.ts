import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.ts';
import type { Credentials, Served } from '../service/index.ts';

/** The bearer token of a request, or null. Other schemes (Payment) are not session tokens. */
export function bearerToken(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

/** What the service layer needs to know about the caller: MPP in Authorization, x402 in PAYMENT-SIGNATURE. */
export function credentialsOf(ctx: Ctx, req: FastifyRequest): Credentials {
  const sig = req.headers['payment-signature'];
  return {
    bearer: bearerToken(req),
    authorization: req.headers.authorization,
    paymentSignature: typeof sig === 'string' ? sig : undefined,
    resourceUrl: `${ctx.config.publicBaseUrl}${req.url}`,
    clientIp: req.ip,
  };
}

export function applyHeaders(reply: FastifyReply, headers: Record<string, string>): void {
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
}

/** A served result as REST answers it: the payment receipt as headers, the value as the body. */
export function sendServed<T>(reply: FastifyReply, served: Served<T>): T {
  applyHeaders(reply, served.receipt);
  return served.value;
}
