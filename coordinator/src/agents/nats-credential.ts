import { eq } from 'drizzle-orm';
import { agentInboxPrefix, WorkKind, type NatsCredentialRequest, type NatsCredentialResponse } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { agents } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { issueAgentJwt } from '../nats-auth/agent-keys.ts';

/**
 * An agent's NATS user JWT (docs/adr/0009), for the key it holds, scoped to the work kinds it
 * registered (read here, not taken from the request). The agent route has already matched the
 * body's agent_id to the credential. A key that replaced another gets the old one revoked at the
 * servers before the answer.
 */
export async function natsCredential(ctx: Ctx, req: NatsCredentialRequest): Promise<NatsCredentialResponse> {
  const inbox_prefix = agentInboxPrefix(req.agent_id);
  if (!ctx.natsAuth) return { v: 1, jwt: null, inbox_prefix };
  const [row] = await ctx.db.select({ capabilities: agents.capabilities, state: agents.state }).from(agents).where(eq(agents.id, req.agent_id)).limit(1);
  if (!row) throw new AppError('conflict', 'register before asking for a NATS credential');
  if (row.state === 'retired') throw new AppError('forbidden', `agent ${req.agent_id} is retired`);
  const kinds = WorkKind.array().safeParse((row.capabilities as { work_kinds?: unknown }).work_kinds ?? []);
  if (!kinds.success || kinds.data.length === 0) throw new AppError('conflict', 'the registered capabilities name no work kind: register again');
  const { jwt, revokedOthers } = await issueAgentJwt(ctx, ctx.natsAuth.keys, req.agent_id, req.public_key, kinds.data);
  if (revokedOthers) await ctx.natsAuth.pushAccount();
  ctx.logger.info({ agent_id: req.agent_id, kinds: kinds.data, replaced_key: revokedOthers }, 'NATS credential issued');
  return { v: 1, jwt, inbox_prefix };
}
