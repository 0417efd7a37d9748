import type { Ctx } from '../context.ts';
import { AppError } from '../lib/app-error.ts';
import type { Credentials } from '../service/index.ts';
import { authorizationOfMeta, credentialTarget } from './payment.ts';

/** A progress notification as the tool sends it (MCP notifications/progress; `progress` only ever increases). */
export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * One tools/call as a tool handler sees it: the service context, the caller's credentials in the
 * service layer's transport-neutral form, the MCP payment credential (if the call carries one),
 * cancellation, and a progress channel when the client asked for progress (progressToken).
 */
export interface ToolCall {
  ctx: Ctx;
  creds: Credentials;
  /** The challenge the call's payment credential answers and the job it pays (its externalId), or null without one. */
  credential: { challengeId: string; jobId: string | null } | null;
  /** Set when this call created the caller's session: its token goes back in the result. */
  newSessionToken: string | null;
  signal: AbortSignal;
  progress: ((p: ProgressReport) => Promise<void>) | null;
}

const bearerOf = (header: string | undefined): string | null => {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m ? m[1]! : null;
};

/**
 * Lifts the caller off an MCP request: the session token from the `session_token` argument or
 * the HTTP `Authorization: Bearer` header (the argument wins: hosts that cannot set headers send
 * it there), the payment credential from `_meta`.
 */
export function toolCallOf(
  ctx: Ctx,
  input: {
    args: Record<string, unknown>;
    headers: Record<string, string | string[] | undefined>;
    meta: Record<string, unknown> | undefined;
    signal: AbortSignal;
    /** The HTTP client's address (per-IP caps), as fastify saw it. */
    clientIp?: string | undefined;
    progress: ToolCall['progress'];
  },
): ToolCall {
  const header = typeof input.headers['authorization'] === 'string' ? input.headers['authorization'] : undefined;
  const argToken = typeof input.args['session_token'] === 'string' ? input.args['session_token'] : null;
  const authorization = authorizationOfMeta(input.meta);
  return {
    ctx,
    creds: {
      bearer: argToken ?? bearerOf(header),
      authorization,
      paymentSignature: undefined,
      resourceUrl: `${ctx.config.publicBaseUrl}/mcp`,
      clientIp: input.clientIp,
    },
    credential: authorization ? credentialTarget(authorization) : null,
    newSessionToken: null,
    signal: input.signal,
    progress: input.progress,
  };
}

/** The job a paying credential names, checked against the job the call is about (when it names one). */
export function paidJobOf(call: ToolCall, expected?: string): string | null {
  const target = call.credential?.jobId ?? null;
  if (target && expected && target !== expected) {
    throw new AppError('invalid_request', `the payment credential pays job ${target}, not job ${expected}: answer the challenge this call returned`);
  }
  return target;
}
