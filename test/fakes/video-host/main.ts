// Runs the fake on its own, for a run by hand against a coordinator started elsewhere:
//   bash scripts/run-node.sh test/fakes/video-host/main.ts [port] [redirect-url]
// prints the coordinator's VIDEO_HOST_* settings (as `export` lines) and serves until Ctrl-C.
// Consent in a browser at the auth URL, or POST /__fake/consent {"auth_url": …}; inspect with
// GET /__fake/videos, /__fake/captions, /__fake/uploads, /__fake/requests, /__fake/quota.
import { startVideoHostFake } from './index.ts';

const port = Number(process.argv[2] ?? process.env['VIDEO_HOST_FAKE_PORT'] ?? 0);
const redirect = process.argv[3];
const fake = await startVideoHostFake({ port, ...(redirect && { redirectUris: [redirect] }) });
for (const [key, value] of Object.entries(fake.env(redirect))) console.log(`export ${key}='${value}'`);
console.error(`video host fake on ${fake.url}; channel ${fake.defaultUser.id} (${fake.defaultUser.title}) consents by default`);
process.on('SIGINT', () => void fake.stop().then(() => process.exit(0)));
