import type { Ctx } from '../context.ts';
import { SYSTEM_OPERATOR } from '../embedded/agent-children.ts';
import { enrollAgent } from '../agent-identity/credentials.ts';
import { mintEnrollmentToken } from '../operators/enrollment.ts';

/** Enrolls an agent the way a host does (mint a one-use token, trade it) and answers its own credential. */
export async function enrolledAgentToken(ctx: Ctx, agentId: string, tags: string[] = []): Promise<string> {
  const minted = await mintEnrollmentToken(ctx, SYSTEM_OPERATOR, { agentId, tags }, { coordinatorUrl: 'http://127.0.0.1', natsUrl: 'nats://127.0.0.1:4222' });
  return (await enrollAgent(ctx, minted.token, { v: 1, agent_id: agentId, hostname: 'test-host' })).token;
}
