import type { AgentCapabilities } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { agents } from '../db/schema.ts';

/** Records what an agent announced; routing itself happens by the consumers it pulls from. */
export async function registerAgent(ctx: Ctx, caps: AgentCapabilities): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.insert(agents)
    .values({ id: caps.agent_id, capabilities: caps, registeredAt: now, lastSeenAt: now })
    .onConflictDoUpdate({ target: agents.id, set: { capabilities: caps, lastSeenAt: now } });
  ctx.logger.info({ agent_id: caps.agent_id, kinds: caps.work_kinds, nvenc: caps.ffmpeg.nvenc, cuda: caps.cuda.available, device: caps.whisper.device }, 'agent registered');
}
