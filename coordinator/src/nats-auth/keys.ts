import { createAccount, createOperator, fromSeed, type KeyPair } from '@nats-io/nkeys';

/**
 * The three keys of NATS decentralized auth (docs/adr/0009), as nkey seeds: the operator (signs
 * account JWTs: the service account again whenever its revocations change), the system account
 * (its users push account updates to the servers) and the service account (holds the work stream;
 * signs the coordinator's and every agent's user JWT).
 */
export interface NatsAuthSeeds {
  operatorSeed: string;
  systemAccountSeed: string;
  accountSeed: string;
}

export interface NatsAuthKeys {
  operator: KeyPair;
  system: KeyPair;
  account: KeyPair;
}

export function newNatsAuthSeeds(): NatsAuthSeeds {
  const text = (k: KeyPair) => new TextDecoder().decode(k.getSeed());
  return { operatorSeed: text(createOperator()), systemAccountSeed: text(createAccount()), accountSeed: text(createAccount()) };
}

/** The key pairs of the seeds; a seed of the wrong kind (an account seed as the operator's) is refused. */
export function natsAuthKeys(seeds: NatsAuthSeeds): NatsAuthKeys {
  const pair = (seed: string, prefix: 'O' | 'A', name: string) => {
    const kp = fromSeed(new TextEncoder().encode(seed));
    if (!kp.getPublicKey().startsWith(prefix)) throw new Error(`${name} is not an ${prefix === 'O' ? 'operator' : 'account'} nkey seed`);
    return kp;
  };
  const keys = {
    operator: pair(seeds.operatorSeed, 'O', 'NATS_OPERATOR_SEED'),
    system: pair(seeds.systemAccountSeed, 'A', 'NATS_SYSTEM_ACCOUNT_SEED'),
    account: pair(seeds.accountSeed, 'A', 'NATS_ACCOUNT_SEED'),
  };
  if (keys.system.getPublicKey() === keys.account.getPublicKey()) throw new Error('NATS_SYSTEM_ACCOUNT_SEED and NATS_ACCOUNT_SEED must differ');
  return keys;
}
