import { encodeAccount, encodeOperator, encodeUser, type Permissions } from '@nats-io/jwt';
import type { KeyPair } from '@nats-io/nkeys';
import type { NatsAuthKeys } from './keys.ts';

/**
 * The JWTs of decentralized auth, signed with the keys of keys.ts. Account limits are explicit:
 * a field the JWT leaves out counts as 0 on the server (no connections, no JetStream).
 */
const OPEN_ACCOUNT = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
const JETSTREAM = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1, max_ack_pending: -1, mem_max_stream_bytes: -1, disk_max_stream_bytes: -1 };

export const ACCOUNT_NAME = 'cutroom';

export const operatorJwt = (k: NatsAuthKeys) => encodeOperator('cutroom-operator', k.operator, { system_account: k.system.getPublicKey() });

export const systemAccountJwt = (k: NatsAuthKeys) => encodeAccount('SYS', k.system, { limits: OPEN_ACCOUNT }, { signer: k.operator });

/**
 * The service account with JetStream on and the revoked user keys: `revocations` maps a user
 * public key to a Unix time in seconds; the server refuses (and disconnects) that key's JWTs issued
 * at or before it.
 */
export const serviceAccountJwt = (k: NatsAuthKeys, revocations: Record<string, number> = {}) =>
  encodeAccount(ACCOUNT_NAME, k.account, { limits: { ...OPEN_ACCOUNT, ...JETSTREAM }, revocations }, { signer: k.operator });

/**
 * A user of the service account. `permissions` absent: everything (the coordinator). Agents get
 * theirs from agent-permissions.ts and a subscription cap.
 */
export const userJwt = (k: NatsAuthKeys, name: string, user: KeyPair | string, permissions?: Permissions & { subs?: number }) =>
  encodeUser(name, user, k.account, permissions ?? {});

/** A user of the system account: what pushes account updates ($SYS.REQ.CLAIMS.UPDATE). */
export const systemUserJwt = (k: NatsAuthKeys, name: string, user: KeyPair) => encodeUser(name, user, k.system, {});
