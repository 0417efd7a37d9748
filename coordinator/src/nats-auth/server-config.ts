import { operatorJwt, serviceAccountJwt, systemAccountJwt } from './claims.ts';
import type { NatsAuthKeys } from './keys.ts';

/**
 * The authorization part of a nats-server configuration for these keys (docs/adr/0009): trust the
 * operator, name the system account, and keep account JWTs in a `full` resolver (a directory the
 * server owns, synchronised across a cluster) so the coordinator can push the service account
 * again when it revokes an agent. The preload only bootstraps: the server keeps the newest JWT of
 * an account, and the coordinator pushes the current one at every start.
 *
 * `resolverDir` is where the server keeps them (in its own data folder).
 */
export async function natsServerAuthConfig(keys: NatsAuthKeys, resolverDir: string): Promise<string> {
  const system = keys.system.getPublicKey();
  const account = keys.account.getPublicKey();
  return [
    '# NATS decentralized auth for cutroom (docs/adr/0009). Generated: edit the seeds, not this.',
    `operator: ${await operatorJwt(keys)}`,
    `system_account: ${system}`,
    `resolver: { type: full, dir: ${JSON.stringify(resolverDir)}, allow_delete: false, interval: "2m" }`,
    'resolver_preload: {',
    `  ${system}: ${await systemAccountJwt(keys)}`,
    `  ${account}: ${await serviceAccountJwt(keys)}`,
    '}',
    '',
  ].join('\n');
}
