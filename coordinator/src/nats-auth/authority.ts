import { createUser } from '@nats-io/nkeys';
import { connect, jwtAuthenticator, type Authenticator } from '@nats-io/transport-node';
import type { Db } from '../db/database.ts';
import type { Logger } from '../lib/logger.ts';
import { revocationList } from './agent-keys.ts';
import { serviceAccountJwt, systemUserJwt, userJwt } from './claims.ts';
import { natsAuthKeys, type NatsAuthKeys, type NatsAuthSeeds } from './keys.ts';

/** What the coordinator does with the keys: sign, connect as itself, push the account. */
export interface NatsAuthority {
  keys: NatsAuthKeys;
  /**
   * Pushes the service account JWT with the current revocations to the servers
   * ($SYS.REQ.CLAIMS.UPDATE as a system-account user); the servers then refuse the revoked keys and
   * close their connections. Throws when no server took it.
   */
  pushAccount(): Promise<void>;
}

/**
 * The coordinator's own user: a fresh key each start, with every permission in the service
 * account (it creates the stream, publishes wake-ups and cancels, reads progress).
 */
export async function serviceAuthenticator(keys: NatsAuthKeys): Promise<Authenticator> {
  const me = createUser();
  return jwtAuthenticator(await userJwt(keys, 'cutroom-coordinator', me), me.getSeed());
}

export function createNatsAuthority(seeds: NatsAuthSeeds, deps: { db: Db; natsUrl: string; logger: Logger }): NatsAuthority {
  const keys = natsAuthKeys(seeds);
  return {
    keys,
    async pushAccount() {
      const revocations = await revocationList(deps);
      const jwt = await serviceAccountJwt(keys, revocations);
      const me = createUser();
      const nc = await connect({
        servers: deps.natsUrl.split(',').map((u) => u.trim()),
        name: 'cutroom-coordinator-system',
        authenticator: jwtAuthenticator(await systemUserJwt(keys, 'cutroom-account-push', me), me.getSeed()),
        maxReconnectAttempts: 2,
      });
      try {
        const answer = (await nc.request('$SYS.REQ.CLAIMS.UPDATE', jwt, { timeout: 5_000 })).json<{
          data?: { code?: number; message?: string };
          error?: { description?: string };
        }>();
        if (answer.data?.code !== 200)
          throw new Error(`nats-server refused the account update: ${answer.error?.description ?? answer.data?.message ?? 'no reason given'}`);
        deps.logger.info({ revoked_keys: Object.keys(revocations).length }, 'NATS service account pushed');
      } finally {
        await nc.close();
      }
    },
  };
}
