// `npm run nats-auth -- DIR [--resolver-dir PATH]`: the keys NATS authentication runs on
// (docs/adr/0009), for a deployment with its own nats-server(s):
//   DIR/nats.env        NATS_OPERATOR_SEED, NATS_SYSTEM_ACCOUNT_SEED, NATS_ACCOUNT_SEED for every
//                       coordinator replica (mode 0600; secret);
//   DIR/nats-auth.conf  what each nats-server's configuration includes (public keys and JWTs only):
//                       trust the operator, the system account, the account resolver, its preload.
// An existing DIR/nats.env is kept (not the compose example's) and the configuration written again from its seeds (after a
// change of --resolver-dir, say); delete it to make new keys (then every agent must be given a
// new NATS credential, which it asks for on its next start).
// --resolver-dir: where each server keeps account JWTs, inside its own storage. @default /data/accounts
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { natsAuthKeys, newNatsAuthSeeds, type NatsAuthSeeds } from '../coordinator/src/nats-auth/keys.ts';
import { natsServerAuthConfig } from '../coordinator/src/nats-auth/server-config.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'resolver-dir': { type: 'string', default: '/data/accounts' } } });
const dir = positionals[0];
if (!dir || positionals.length > 1) {
  process.stderr.write('usage: npm run nats-auth -- DIR [--resolver-dir PATH]\n');
  process.exit(2);
}
mkdirSync(dir, { recursive: true, mode: 0o700 });
const envFile = join(dir, 'nats.env');
const confFile = join(dir, 'nats-auth.conf');

function readSeeds(file: string): NatsAuthSeeds {
  const env = Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).trim()]),
  );
  const seeds = { operatorSeed: env.NATS_OPERATOR_SEED, systemAccountSeed: env.NATS_SYSTEM_ACCOUNT_SEED, accountSeed: env.NATS_ACCOUNT_SEED };
  if (!seeds.operatorSeed || !seeds.systemAccountSeed || !seeds.accountSeed) throw new Error(`${file} lacks one of the three NATS_*_SEED lines`);
  return seeds as NatsAuthSeeds;
}

// The compose example's file (copied with secrets.example) is never kept: its seeds are public.
const kept = existsSync(envFile) && !readFileSync(envFile, 'utf8').startsWith('# EXAMPLE VALUES');
const seeds = kept ? readSeeds(envFile) : newNatsAuthSeeds();
if (!kept)
  writeFileSync(
    envFile,
    [
      '# NATS authentication keys (docs/adr/0009), made by npm run nats-auth: every coordinator replica reads them.',
      '# Secret: whoever holds them can sign NATS users and revoke agents.',
      `NATS_OPERATOR_SEED=${seeds.operatorSeed}`,
      `NATS_SYSTEM_ACCOUNT_SEED=${seeds.systemAccountSeed}`,
      `NATS_ACCOUNT_SEED=${seeds.accountSeed}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
writeFileSync(confFile, await natsServerAuthConfig(natsAuthKeys(seeds), values['resolver-dir']!), { mode: 0o644 });
process.stdout.write(
  `${kept ? 'kept' : 'wrote'} ${envFile} (the coordinators' NATS_*_SEED)\nwrote ${confFile} (include it in every nats-server's configuration)\n`,
);
