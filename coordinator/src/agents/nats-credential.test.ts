import { decode, type User } from '@nats-io/jwt';
import { createUser } from '@nats-io/nkeys';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentNatsKeys } from '../db/schema.ts';
import { SYSTEM_OPERATOR } from '../embedded/agent-children.ts';
import { revocationList } from '../nats-auth/agent-keys.ts';
import { revokeCredentials, setAgentState } from '../operators/agent-control.ts';
import { addAgent, createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import { natsCredential } from './nats-credential.ts';

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

const ask = (agentId: string, publicKey: string) => natsCredential(ctx, { v: 1, agent_id: agentId, public_key: publicKey });

describe('NATS credentials for agents (docs/adr/0009)', () => {
  it('signs a JWT for the agent’s own key, scoped to the kinds it registered (not asked for), with its inbox', async () => {
    await addAgent(ctx, 'gpu.host-1', ['cut', 'understand']);
    const key = createUser();
    const r = await ask('gpu.host-1', key.getPublicKey());
    expect(r.inbox_prefix).toBe('_INBOX_gpu~host-1');
    const claims = decode<User>(r.jwt!);
    expect(claims.sub).toBe(key.getPublicKey());
    expect(claims.iss).toBe(ctx.natsAuth!.keys.account.getPublicKey());
    expect(claims.nats.pub?.allow).toEqual(
      expect.arrayContaining([
        '$JS.API.CONSUMER.MSG.NEXT.CUTROOM_WORK_V1.work-cut-v1',
        '$JS.API.CONSUMER.MSG.NEXT.CUTROOM_WORK_V1.work-understand-v1',
        'cutroom.progress.v2.gpu~host-1.*',
      ]),
    );
    expect(claims.nats.pub?.allow?.join(' ')).not.toMatch(/transcribe|control/);
    expect(claims.nats.sub?.allow).toEqual(['_INBOX_gpu~host-1.>', 'cutroom.control.v2.cancel.gpu~host-1.*']);
    expect(claims.nats.subs).toBe(100);
  });

  it('revokes the old key when another is registered, and never signs a revoked key or another agent’s', async () => {
    await addAgent(ctx, 'host-2');
    const first = createUser();
    const second = createUser();
    await ask('host-2', first.getPublicKey());
    const pushes = ctx.notified.natsPushes;
    await ask('host-2', first.getPublicKey()); // the same key again: nothing revoked, nothing pushed
    expect(ctx.notified.natsPushes).toBe(pushes);
    await ask('host-2', second.getPublicKey());
    expect(ctx.notified.natsPushes).toBe(pushes + 1);
    expect(Object.keys(await revocationList(ctx))).toContain(first.getPublicKey());
    await expect(ask('host-2', first.getPublicKey())).rejects.toMatchObject({ status: 403 });
    await addAgent(ctx, 'host-3');
    await expect(ask('host-3', second.getPublicKey())).rejects.toMatchObject({ status: 403 });
    await expect(ask('host-2', 'not-a-key')).rejects.toMatchObject({ status: 400 });
  });

  it('revokes every key with the agent’s credentials, or when it is retired, and pushes the account each time', async () => {
    await addAgent(ctx, 'host-4');
    await addAgent(ctx, 'host-5');
    const k4 = createUser();
    const k5 = createUser();
    await ask('host-4', k4.getPublicKey());
    await ask('host-5', k5.getPublicKey());
    const pushes = ctx.notified.natsPushes;
    await revokeCredentials(ctx, SYSTEM_OPERATOR, 'host-4');
    await setAgentState(ctx, SYSTEM_OPERATOR, 'host-5', 'retired');
    expect(ctx.notified.natsPushes).toBe(pushes + 2);
    const revoked = await revocationList(ctx);
    const [row] = await ctx.db.select().from(agentNatsKeys).where(eq(agentNatsKeys.publicKey, k4.getPublicKey()));
    // Rounded up to the second: a JWT issued in the second of the revocation is refused too.
    expect(revoked[k4.getPublicKey()]).toBe(Math.ceil(row!.revokedAt!.getTime() / 1000));
    expect(revoked[k5.getPublicKey()]).toBeDefined();
    await expect(ask('host-5', createUser().getPublicKey())).rejects.toMatchObject({ status: 403 });
  });

  it('answers no JWT when NATS runs without authentication', async () => {
    const saved = ctx.natsAuth;
    ctx.natsAuth = null;
    try {
      expect(await ask('host-6', createUser().getPublicKey())).toEqual({ v: 1, jwt: null, inbox_prefix: '_INBOX_host-6' });
    } finally {
      ctx.natsAuth = saved;
    }
  });
});
