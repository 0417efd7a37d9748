import type { CoordinatorConfig } from '../config.ts';
import type { NatsAuthSeeds } from './keys.ts';

/**
 * The seeds to run with, or null for NATS_AUTH=none. Configured seeds win over generated ones
 * (the embedded default's); with NATS_AUTH=jwt and neither, the coordinator refuses to start.
 */
export function natsAuthSeedsOf(config: CoordinatorConfig, generated: NatsAuthSeeds | undefined): NatsAuthSeeds | null {
  if (config.NATS_AUTH === 'none') return null;
  if (config.NATS_OPERATOR_SEED && config.NATS_SYSTEM_ACCOUNT_SEED && config.NATS_ACCOUNT_SEED)
    return { operatorSeed: config.NATS_OPERATOR_SEED, systemAccountSeed: config.NATS_SYSTEM_ACCOUNT_SEED, accountSeed: config.NATS_ACCOUNT_SEED };
  if (generated) return generated;
  throw new Error(
    'NATS authentication needs NATS_OPERATOR_SEED, NATS_SYSTEM_ACCOUNT_SEED and NATS_ACCOUNT_SEED (npm run nats-auth makes them with the ' +
      'nats-server configuration that trusts them; deploy/README.md), or NATS_AUTH=none for a server without authentication (development only)',
  );
}
