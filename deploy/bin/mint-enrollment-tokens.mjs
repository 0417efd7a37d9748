#!/usr/bin/env node
// Mints one enrollment token per agent name through the admin API (tRPC `enrollment.mint`, the call
// behind the console's Farm → Add a host) and writes each token to OUT_DIR/<name> (mode 0600, written
// whole then renamed, so an agent waiting for the file never reads half of it). Plain Node 24, no
// dependencies: it runs in the coordinator image (compose's `enroll` one-shot) or from a checkout.
//
//   COORDINATOR_URL=https://cutroom.example.com ADMIN_TOKEN=cro_… \
//     node deploy/bin/mint-enrollment-tokens.mjs --out DIR [--tags gpu,region-eu] [--enrolled DIR] [--owner UID:GID] NAME…
//
// --enrolled DIR: skip NAME when DIR/NAME/agent-credential.json exists (the agent already holds a
// credential; compose mounts each agent's credential volume there), and remove a stale token file.
// --owner UID:GID (run as root): hand the token files and DIR/NAME folders to the agents' user. A named
// volume first mounted where the image has no such folder starts out owned by root, and compose's
// `enroll` mounts the agents' credential volumes before the agents ever run.
// A token is one-use and expires (ENROLLMENT_TOKEN_TTL_HOURS); one left unused does no harm.
// Environment: COORDINATOR_URL (the public listener, where /admin/trpc is), ADMIN_TOKEN (an operator's).
import { chownSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { out: { type: 'string' }, tags: { type: 'string', default: '' }, enrolled: { type: 'string' }, owner: { type: 'string' } },
});
const { COORDINATOR_URL, ADMIN_TOKEN } = process.env;
const base = COORDINATOR_URL?.replace(/\/+$/, '');
const adminToken = ADMIN_TOKEN;
const fail = (message) => {
  console.error(`mint-enrollment-tokens: ${message}`);
  process.exit(2);
};
if (!base) fail('COORDINATOR_URL is not set');
if (!adminToken) fail('ADMIN_TOKEN is not set');
if (!values.out) fail('--out DIR is required');
if (positionals.length === 0) fail('name at least one agent');
for (const name of positionals) if (!NAME.test(name)) fail(`not an agent name: ${name}`);
const owner = values.owner
  ?.match(/^(\d+):(\d+)$/)
  ?.slice(1)
  .map(Number);
if (values.owner && !owner) fail(`--owner takes UID:GID, not ${values.owner}`);
const own = (path) => owner && chownSync(path, owner[0], owner[1]);
const tags = values.tags
  .split(',')
  .map((t) => t.trim())
  .filter(Boolean);

/** One mint call; a coordinator that is still starting (no answer, or a 5xx) is asked again, 5 times at most. */
async function mint(name) {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(`${base}/admin/trpc/enrollment.mint`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: name, tags }),
        signal: AbortSignal.timeout(15_000),
      });
      if (res.status < 500 || attempt === 5) return { res, body: await res.json().catch(() => null) };
    } catch (err) {
      if (attempt === 5) fail(`${name}: no answer from ${base}: ${err.cause?.message ?? err.message}`);
    }
    await new Promise((r) => setTimeout(r, 2000 * attempt));
  }
}

mkdirSync(values.out, { recursive: true });
own(values.out);
for (const name of positionals) {
  const tokenFile = join(values.out, name);
  if (values.enrolled && existsSync(join(values.enrolled, name))) own(join(values.enrolled, name));
  if (values.enrolled && existsSync(join(values.enrolled, name, 'agent-credential.json'))) {
    rmSync(tokenFile, { force: true });
    console.log(`${name}: already enrolled`);
    continue;
  }
  const { res, body } = await mint(name);
  const token = body?.result?.data?.token;
  if (!res.ok || typeof token !== 'string') fail(`${name}: the admin API answered ${res.status}: ${JSON.stringify(body?.error?.message ?? body)}`);
  writeFileSync(`${tokenFile}.tmp`, `${token}\n`, { mode: 0o600 });
  own(`${tokenFile}.tmp`);
  renameSync(`${tokenFile}.tmp`, tokenFile);
  console.log(`${name}: token written, expires ${body.result.data.expires_at}`);
}
