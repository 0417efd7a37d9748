import { isDeepStrictEqual } from 'node:util';
import { eq } from 'drizzle-orm';
import type { AgentCapabilities, RegisterResponse } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { agents } from '../db/schema.ts';
import { controlOf } from '../operators/agent-control.ts';

/**
 * Records what an agent announced and when it was last seen, and answers what operators set for
 * it (drain, credential rotation). Agents re-announce every 30 s as presence (the claim's liveness
 * check reads last_seen_at); only a new agent or changed capabilities are logged at info. The row
 * exists from enrollment on; its state and tags are the operators' and never changed here.
 */
export async function registerAgent(ctx: Ctx, caps: AgentCapabilities): Promise<RegisterResponse> {
  const now = ctx.clock.now();
  const [before] = await ctx.db.select({ capabilities: agents.capabilities }).from(agents).where(eq(agents.id, caps.agent_id)).limit(1);
  const [row] = await ctx.db
    .insert(agents)
    .values({ id: caps.agent_id, capabilities: caps, registeredAt: now, lastSeenAt: now })
    .onConflictDoUpdate({ target: agents.id, set: { capabilities: caps, lastSeenAt: now } })
    .returning({ state: agents.state, rotateRequestedAt: agents.rotateRequestedAt });
  const changed = !before || !isDeepStrictEqual(before.capabilities, caps);
  const fields = { agent_id: caps.agent_id, kinds: caps.work_kinds, nvenc: caps.ffmpeg.nvenc, cuda: caps.cuda.available, device: caps.whisper.device };
  if (changed) ctx.logger.info(fields, 'agent registered');
  else ctx.logger.debug(fields, 'agent present');
  return { v: 1, ok: true, control: controlOf(row ?? null) };
}
