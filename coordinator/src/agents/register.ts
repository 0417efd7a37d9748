import { isDeepStrictEqual } from 'node:util';
import { eq } from 'drizzle-orm';
import type { AgentCapabilities } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { agents } from '../db/schema.ts';

/**
 * Records what an agent announced and when it was last seen. Agents re-announce every 30 s as
 * presence (the claim's liveness check reads last_seen_at); only a new agent or changed
 * capabilities are logged at info.
 */
export async function registerAgent(ctx: Ctx, caps: AgentCapabilities): Promise<void> {
  const now = ctx.clock.now();
  const [before] = await ctx.db.select({ capabilities: agents.capabilities }).from(agents).where(eq(agents.id, caps.agent_id)).limit(1);
  await ctx.db
    .insert(agents)
    .values({ id: caps.agent_id, capabilities: caps, registeredAt: now, lastSeenAt: now })
    .onConflictDoUpdate({ target: agents.id, set: { capabilities: caps, lastSeenAt: now } });
  const changed = !before || !isDeepStrictEqual(before.capabilities, caps);
  const fields = { agent_id: caps.agent_id, kinds: caps.work_kinds, nvenc: caps.ffmpeg.nvenc, cuda: caps.cuda.available, device: caps.whisper.device };
  if (changed) ctx.logger.info(fields, 'agent registered');
  else ctx.logger.debug(fields, 'agent present');
}
