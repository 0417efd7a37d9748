import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCoordinatorConfig } from '../coordinator/src/config.ts';
import { natsAuthKeys, newNatsAuthSeeds } from '../coordinator/src/nats-auth/keys.ts';
import { ensureBootstrapOperator } from '../coordinator/src/operators/operator-auth.ts';
import { startTestApp } from '../coordinator/src/testing/test-app.ts';
import { AgentConfig, loadAgentConfig } from '../render-agent/src/config.ts';

/**
 * deploy/: the compose stack, the Helm chart, the images and the enrollment bootstrap, checked with
 * the tools scripts/ensure-deploy-tools.sh puts in .tools/deploy/ (compose-go's loader, helm,
 * kubeconform with offline Kubernetes schemas, hadolint, haproxy, nats-server). A missing tool fails
 * the suite: nothing is skipped. What needs a Docker engine, a cluster or a GPU is listed in
 * deploy/README.md ("What was validated").
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const tools = join(root, '.tools/deploy');
const bin = (name: string) => join(tools, 'bin', name);
const deploy = join(root, 'deploy');
const chart = join(deploy, 'helm/cutroom');
const KUBERNETES_VERSION = '1.33.0';

type Env = Record<string, string>;
/** A parsed manifest or compose object: its shape is what the assertions check. */
type Doc = Record<string, any>;

function run(cmd: string, args: string[], opts: { cwd?: string; env?: Env; input?: string } = {}) {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? root, env: { ...process.env, ...opts.env }, input: opts.input, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { status: r.status, out: r.stdout, err: r.stderr };
}
function ok(cmd: string, args: string[], opts: Parameters<typeof run>[2] = {}): string {
  const r = run(cmd, args, opts);
  expect(r.status, `${cmd} ${args.join(' ')}\n${r.out}\n${r.err}`).toBe(0);
  return r.out;
}
/** YAML → JSON with PyYAML from the tools' venv (no YAML parser among the test workspace's dependencies). */
function yamlDocs(text: string): Doc[] {
  const py = 'import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(sys.stdin) if d]))';
  return JSON.parse(ok(join(tools, 'venv/bin/python'), ['-c', py], { input: text }));
}

// ---- the settings each process reads -------------------------------------------------------------
// The coordinator's zod schema is not exported; its parse result keeps exactly the schema's keys
// (zod strips the others), so a name given a non-empty value is the coordinator's when it is kept.
function checkCoordinatorEnv(env: Env, where: string): void {
  const config = loadCoordinatorConfig(env) as unknown as Record<string, unknown>;
  const foreign = Object.keys(env).filter((k) => env[k] !== '' && !(k in config));
  expect(foreign, `${where}: names the coordinator does not read`).toEqual([]);
  // main.ts's own requirements.
  expect(config.NATS_URL, `${where}: NATS_URL`).toBeTruthy();
  // NATS authentication is on (docs/adr/0009): startCoordinator refuses to start without the seeds.
  expect(config.NATS_AUTH, `${where}: NATS_AUTH`).toBe('jwt');
  for (const seed of ['NATS_OPERATOR_SEED', 'NATS_SYSTEM_ACCOUNT_SEED', 'NATS_ACCOUNT_SEED']) expect(config[seed], `${where}: ${seed}`).toBeTruthy();
  expect(config.S3_BUCKET ?? config.URL_SIGNING_SECRET, `${where}: S3_BUCKET or URL_SIGNING_SECRET`).toBeTruthy();
}
const agentNames = new Set(Object.keys((AgentConfig as unknown as { in: { shape: Record<string, unknown> } }).in.shape));
/** Read by the images' entrypoint (deploy/images/agent-entrypoint.sh), never by the agent. */
const ENTRYPOINT_NAMES = ['AGENT_ENROLLMENT_TOKEN_FILE', 'AGENT_ENROLLMENT_WAIT_SECONDS'];
/** Read by the platform: Kubernetes' downward API (for $(POD_NAME)) and the NVIDIA container toolkit. */
const PLATFORM_NAMES = ['POD_NAME', 'NVIDIA_DRIVER_CAPABILITIES'];
function checkAgentEnv(env: Env, where: string): void {
  const foreign = Object.keys(env).filter((k) => !agentNames.has(k) && !ENTRYPOINT_NAMES.includes(k) && !PLATFORM_NAMES.includes(k));
  expect(foreign, `${where}: names the render-agent does not read`).toEqual([]);
  const agentEnv = Object.fromEntries(Object.entries(env).filter(([k]) => agentNames.has(k)));
  expect(() => loadAgentConfig(agentEnv), where).not.toThrow();
}
/** Names a script takes from its environment: `const { A, B } = process.env`. */
function envNamesOf(file: string): Set<string> {
  const m = readFileSync(file, 'utf8').match(/const \{([^}]+)\} = process\.env;/);
  expect(m, `${file} reads its environment in one place`).not.toBeNull();
  return new Set(m![1]!.split(',').map((n) => n.trim()));
}
const SECRET_NAMES = ['ADMIN_TOKEN', 'DATABASE_URL', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'URL_SIGNING_SECRET', 'METRICS_TOKEN', 'TOKEN_ENCRYPTION_KEY'];

// A missing tool is a failure here, and every check that needs it fails too (none is skipped).
it('the deploy tools are installed (bash scripts/ensure-deploy-tools.sh)', () => {
  const missing = ['helm', 'kubeconform', 'compose-check', 'hadolint'].filter((t) => !existsSync(bin(t)));
  if (!existsSync(join(tools, 'k8s-schemas'))) missing.push('k8s-schemas');
  if (!existsSync(join(tools, 'venv/bin/python'))) missing.push('venv');
  expect(missing, 'run bash scripts/ensure-deploy-tools.sh').toEqual([]);
});

describe('the settings checks themselves', () => {
  it('tell a made-up name from a real one, for both processes', () => {
    const seeds = newNatsAuthSeeds();
    const nats = { NATS_OPERATOR_SEED: seeds.operatorSeed, NATS_SYSTEM_ACCOUNT_SEED: seeds.systemAccountSeed, NATS_ACCOUNT_SEED: seeds.accountSeed };
    const base = { NATS_URL: 'nats://n:4222', S3_BUCKET: 'b', ...nats };
    expect(() => checkCoordinatorEnv({ ...base, LEASE_MS: '30000' }, 'known')).not.toThrow();
    expect(() => checkCoordinatorEnv({ NATS_URL: 'nats://n:4222', S3_BUCKET: 'b' }, 'no NATS seeds')).toThrow(/NATS_OPERATOR_SEED/);
    expect(() => checkCoordinatorEnv({ ...base, NOT_A_SETTING: 'x' }, 'made up')).toThrow(/NOT_A_SETTING/);
    expect(agentNames.has('COORDINATOR_URL') && agentNames.has('LLM_MODEL') && agentNames.has('AGENT_CREDENTIAL_FILE')).toBe(true);
    expect(() => checkAgentEnv({ COORDINATOR_URL: 'http://c:8081', NATS_URL: 'nats://n:4222', AGENT_TOKEN: 'x' }, 'old name')).toThrow(/AGENT_TOKEN/);
  });
});

describe('compose stack (deploy/compose)', () => {
  const composeDir = join(deploy, 'compose');
  let project: Doc;
  let services: Record<string, Doc>;
  const envOf = (s: Doc): Env => Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v ?? '')]));

  beforeAll(() => {
    // The example secrets stand in for secrets/ (which only an operator creates).
    const out = ok(bin('compose-check'), [join(composeDir, 'compose.yaml')], { cwd: composeDir, env: { CUTROOM_SECRETS: './secrets.example' } });
    project = JSON.parse(out);
    services = project.services;
  });

  it('loads with compose-go (the Compose Specification schema and the loader checks) and has every piece', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'agent-cpu-1',
        'agent-cpu-2',
        'coordinator-1',
        'coordinator-2',
        'enroll',
        'minio',
        'minio-init',
        'nats-1',
        'nats-2',
        'nats-3',
        'postgres',
        'proxy',
      ].sort(),
    );
    expect(services.postgres!.image).toMatch(/^postgres:15/);
    for (const n of ['nats-1', 'nats-2', 'nats-3']) expect(services[n]!.image).toMatch(/^nats:2\.1\d/);
    for (const s of Object.values(services)) if (s.build) expect(existsSync(join(s.build.context, s.build.dockerfile)), s.build.dockerfile).toBe(true);
  });

  it('the loader bites: a key the specification lacks, a dependency on a missing service', () => {
    const text = readFileSync(join(composeDir, 'compose.yaml'), 'utf8');
    for (const [broken, error] of [
      [text.replace('  postgres:\n', '  postgres:\n    bogus: 1\n'), /services\.postgres.*bogus/],
      [text.replace('      minio-init: {condition', '      minio-inti: {condition'), /undefined service "minio-inti"/],
    ] as const) {
      const file = join(composeDir, '.broken-compose.yaml');
      writeFileSync(file, broken);
      try {
        const r = run(bin('compose-check'), [file], { cwd: composeDir, env: { CUTROOM_SECRETS: './secrets.example' } });
        expect(r.status).toBe(1);
        expect(r.err).toMatch(error);
      } finally {
        rmSync(file, { force: true });
      }
    }
  });

  it('refuses to start without real secrets: the examples are never a default', () => {
    const bare = mkdtempSync(join(tmpdir(), 'compose-'));
    copyFileSync(join(composeDir, 'compose.yaml'), join(bare, 'compose.yaml'));
    const r = run(bin('compose-check'), [join(bare, 'compose.yaml')], { cwd: bare, env: { CUTROOM_SECRETS: '' } });
    expect(r.status).not.toBe(0);
    expect(r.err).toMatch(/secrets\/(admin|coordinator|infra|s3)\.env/);
    for (const f of readdirSync(join(composeDir, 'secrets.example'))) {
      expect(readFileSync(join(composeDir, 'secrets.example', f), 'utf8'), f).toMatch(/^# EXAMPLE VALUE/);
    }
  });

  it('coordinators: every setting is one the coordinator reads, and the stack config loads', () => {
    for (const name of ['coordinator-1', 'coordinator-2']) {
      const s = services[name]!;
      checkCoordinatorEnv(envOf(s), name);
      expect(envOf(s).AGENT_LISTEN_PORT).toBe('8081');
      expect(s.healthcheck.test.join(' ')).toContain('/health');
      expect(s.build.dockerfile).toBe('deploy/images/coordinator/Dockerfile');
    }
    expect(services['coordinator-2']!.depends_on['coordinator-1'].condition).toBe('service_healthy');
  });

  it('agents: their settings, a credential on a named volume each, a token from the enroll one-shot, no secrets', () => {
    const agents = Object.entries(services).filter(([, s]) => s.build?.dockerfile === 'deploy/images/agent-cpu/Dockerfile');
    expect(agents.map(([n]) => n)).toEqual(['agent-cpu-1', 'agent-cpu-2']);
    const enroll = services.enroll!;
    for (const [name, s] of agents) {
      const env = envOf(s);
      checkAgentEnv(env, name);
      expect(env.AGENT_ID).toBe(name);
      expect(env.COORDINATOR_URL).toBe('http://proxy:8081');
      expect(env.NATS_URL!.split(',')).toHaveLength(3);
      expect(Object.keys(env).filter((k) => SECRET_NAMES.includes(k))).toEqual([]);
      expect(s.env_file ?? []).toEqual([]);
      const cred = s.volumes.find((v: Doc) => v.target === dirname(env.AGENT_CREDENTIAL_FILE!));
      expect(cred?.type, `${name}: credential folder on a named volume`).toBe('volume');
      expect(project.volumes[cred.source]).toBeDefined();
      expect(s.volumes.find((v: Doc) => v.target === dirname(env.AGENT_ENROLLMENT_TOKEN_FILE!))?.read_only).toBe(true);
      expect(s.depends_on.enroll.condition).toBe('service_completed_successfully');
      // The one-shot mints this agent's token and sees its credential volume.
      expect(enroll.entrypoint).toContain(name);
      expect(enroll.volumes.find((v: Doc) => v.source === cred.source)?.target).toBe(`/var/lib/cutroom/credentials/${name}`);
      expect(env.AGENT_ENROLLMENT_TOKEN_FILE).toBe(`/var/lib/cutroom/enrollment/${name}`);
    }
    const scriptNames = envNamesOf(join(deploy, 'bin/mint-enrollment-tokens.mjs'));
    expect(Object.keys(envOf(enroll)).filter((k) => !scriptNames.has(k))).toEqual([]);
    expect(envOf(enroll).ADMIN_TOKEN).toBeTruthy();
  });

  it('nats.conf: a three-route JetStream cluster with authentication that nats-server accepts', () => {
    const conf = readFileSync(join(composeDir, 'nats.conf'), 'utf8');
    for (const n of [1, 2, 3]) expect(conf).toContain(`nats-route://nats-${n}:6222`);
    expect(conf).toMatch(/jetstream\s*\{/);
    expect(conf).toMatch(/^include \.\/auth\.conf$/m);
    // Every node mounts the generated authentication beside it (docs/adr/0009), and the coordinators read its seeds.
    for (const n of [1, 2, 3])
      expect(services[`nats-${n}`]!.volumes.find((v: Doc) => v.target === '/etc/nats/auth.conf')?.source).toMatch(/secrets\.example\/nats-auth\.conf$/);
    const dir = mkdtempSync(join(tmpdir(), 'nats-conf-'));
    copyFileSync(join(composeDir, 'nats.conf'), join(dir, 'nats.conf'));
    copyFileSync(join(composeDir, 'secrets.example/nats-auth.conf'), join(dir, 'auth.conf'));
    ok('nats-server', ['-t', '-c', join(dir, 'nats.conf')], { env: { NATS_SERVER_NAME: 'nats-1' } });
    // The example configuration trusts the example seeds: made together (npm run nats-auth).
    const seeds = Object.fromEntries(
      readFileSync(join(composeDir, 'secrets.example/nats.env'), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('NATS_'))
        .map((l) => l.split('=')),
    );
    const keys = natsAuthKeys({
      operatorSeed: seeds.NATS_OPERATOR_SEED,
      systemAccountSeed: seeds.NATS_SYSTEM_ACCOUNT_SEED,
      accountSeed: seeds.NATS_ACCOUNT_SEED,
    });
    const auth = readFileSync(join(dir, 'auth.conf'), 'utf8');
    expect(auth).toContain(`system_account: ${keys.system.getPublicKey()}`);
    expect(auth).toContain(`${keys.account.getPublicKey()}: `);
    rmSync(dir, { recursive: true, force: true });
  });

  it('haproxy.cfg: haproxy accepts it, and it checks /health on both coordinators', () => {
    const cfg = readFileSync(join(composeDir, 'haproxy.cfg'), 'utf8');
    expect(cfg.match(/option httpchk GET \/health/g)).toHaveLength(2);
    const r = run('haproxy', ['-c', '-f', join(composeDir, 'haproxy.cfg')]);
    expect(r.status, r.err).toBe(0);
    // The only warnings: the coordinators' names, which only Docker's DNS resolves (init-addr none).
    const warnings = r.err.split('\n').filter((l) => l.includes('[WARNING]'));
    expect(warnings.filter((w) => !/could not resolve address 'coordinator-[12]'/.test(w))).toEqual([]);
  });
});

describe('Helm chart (deploy/helm/cutroom)', () => {
  const testValues = join(chart, 'ci/test-values.yaml');
  // --kube-version: a helm built with go install reports a default of 1.20, below the chart's kubeVersion.
  const render = (...args: string[]) =>
    ok(bin('helm'), ['template', 'cutroom-test', chart, '--namespace', 'media', '--kube-version', KUBERNETES_VERSION, ...args]);
  const template = (...args: string[]) => yamlDocs(render(...args));
  const kind = (docs: Doc[], k: string) => docs.filter((d) => d.kind === k);
  // kubeconform reads the schemas kubernetes-validate ships (kubeconform's own file names; the
  // strict flavour makes unknown fields errors; $refs point at the folder's _definitions.json).
  const schemaLocation = `${join(tools, 'k8s-schemas')}/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`;
  function kubeconform(docs: string) {
    const r = run(
      bin('kubeconform'),
      ['-strict', '-summary', '-output', 'json', '-kubernetes-version', KUBERNETES_VERSION, '-schema-location', schemaLocation, '-'],
      { input: docs },
    );
    return { status: r.status, report: JSON.parse(r.out) as Doc };
  }
  /** A container's environment as the kubelet gives it: envFrom Secrets (from the rendered ones), then env with $(VAR) expanded. */
  function podEnv(container: Doc, secrets: Doc[], podName: string): Env {
    const env: Env = {};
    for (const from of container.envFrom ?? []) {
      const secret = secrets.find((s) => s.metadata.name === from.secretRef.name);
      expect(secret, `Secret ${from.secretRef.name}`).toBeDefined();
      Object.assign(env, secret!.stringData);
    }
    for (const e of container.env ?? []) {
      env[e.name] = e.valueFrom?.fieldRef?.fieldPath === 'metadata.name' ? podName : String(e.value ?? '').replace(/\$\((\w+)\)/g, (_, v) => env[v] ?? '');
    }
    return env;
  }

  it('helm lint passes with the defaults and, strictly, with the test values', () => {
    ok(bin('helm'), ['lint', chart]);
    ok(bin('helm'), ['lint', '--strict', chart, '-f', testValues]);
  });

  it(`renders manifests that kubeconform validates against Kubernetes ${KUBERNETES_VERSION}'s schemas, none skipped`, () => {
    for (const args of [[], ['-f', testValues], ['--set', 'agents.cpu.persistence.enabled=false', '--set', 'secrets.existingSecret=mine']]) {
      const text = render(...args);
      const { status, report } = kubeconform(text);
      expect(report.summary, args.join(' ')).toMatchObject({ invalid: 0, errors: 0, skipped: 0 });
      expect(report.summary.valid).toBe(yamlDocs(text).length);
      expect(status).toBe(0);
    }
    // The check bites: an unknown field and a wrongly typed one, deep inside a pod template.
    const broken = render('-f', testValues).replace('minAvailable: 1', 'minAvailable: 1\n  bogusField: 3').replace('containerPort: 8080', 'containerPort: "x"');
    const { status, report } = kubeconform(broken);
    expect(status).not.toBe(0);
    expect(report.summary).toMatchObject({ invalid: 2 });
    expect(JSON.stringify(report.resources)).toMatch(/bogusField.*not allowed|not allowed.*bogusField/);
  });

  it('coordinator: 2 replicas, /health probes, the agents listener as a Service of its own, a PDB, scrape annotations', () => {
    const docs = template('-f', testValues);
    const [dep] = kind(docs, 'Deployment');
    expect(dep!.spec.replicas).toBe(2);
    const pod = dep!.spec.template;
    const c = pod.spec.containers[0];
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) expect(c[probe].httpGet.path, probe).toBe('/health');
    expect(pod.metadata.annotations['prometheus.io/scrape']).toBe('true');
    const agentsSvc = kind(docs, 'Service').find((s) => s.metadata.name.endsWith('-agents'));
    expect(agentsSvc!.spec.ports[0].port).toBe(8081);
    expect(kind(docs, 'PodDisruptionBudget')[0]!.spec.minAvailable).toBe(1);
    const env = podEnv(c, kind(docs, 'Secret'), 'coordinator');
    checkCoordinatorEnv(env, 'coordinator Deployment');
    expect(env.AGENT_LISTEN_PORT).toBe('8081');
  });

  it('secrets: the chart-made Secret, or an existing one by name', () => {
    expect(kind(template('-f', testValues), 'Secret')).toHaveLength(1);
    const docs = template('--set', 'secrets.existingSecret=mine');
    expect(kind(docs, 'Secret')).toHaveLength(0);
    expect(kind(docs, 'Deployment')[0]!.spec.template.spec.containers[0].envFrom[0].secretRef.name).toBe('mine');
  });

  it('agents: a StatefulSet per pool with a credential per pod, enrollment by Secret, GPU scheduling', () => {
    const docs = template('-f', testValues);
    const sets: Record<string, Doc> = Object.fromEntries(kind(docs, 'StatefulSet').map((s) => [s.metadata.name.replace(/.*-agent-/, ''), s]));
    expect(Object.keys(sets).sort()).toEqual(['cpu', 'gpu']);
    for (const [pool, set] of Object.entries(sets)) {
      const pod = set.spec.template.spec;
      const c = pod.containers[0];
      const podName = `${set.metadata.name}-0`;
      const env = podEnv(c, [], podName);
      checkAgentEnv(env, `${pool} agents`);
      expect(env.AGENT_ID).toBe(podName);
      expect(env.COORDINATOR_URL).toMatch(/-agents:8081$/);
      expect(Object.keys(env).filter((k) => SECRET_NAMES.includes(k))).toEqual([]);
      expect(set.spec.volumeClaimTemplates[0].metadata.name).toBe('credential');
      expect(c.volumeMounts.find((m: Doc) => m.name === 'credential').mountPath).toBe(dirname(env.AGENT_CREDENTIAL_FILE!));
      const enrollment = pod.volumes.find((v: Doc) => v.name === 'enrollment').secret;
      expect(enrollment.optional).toBe(true);
      expect(env.AGENT_ENROLLMENT_TOKEN_FILE).toBe(`${c.volumeMounts.find((m: Doc) => m.name === 'enrollment').mountPath}/${podName}`);
      expect(pod.securityContext.fsGroup).toBe(10001);
    }
    const gpu = sets.gpu!.spec.template.spec;
    expect(gpu.containers[0].resources.limits['nvidia.com/gpu']).toBe(1);
    expect(gpu.tolerations.map((t: Doc) => t.key)).toContain('nvidia.com/gpu');
    expect(gpu.nodeSelector['nvidia.com/gpu.present']).toBe('true');
    expect(podEnv(gpu.containers[0], [], 'x').WHISPER_DEVICE).toBe('cuda');
    expect(sets.cpu!.spec.template.spec.containers[0].resources.limits['nvidia.com/gpu']).toBeUndefined();
    // Without persistence the credential is an emptyDir (the documented trade-off).
    const ephemeral = kind(template('--set', 'agents.cpu.persistence.enabled=false'), 'StatefulSet')[0]!;
    expect(ephemeral.spec.volumeClaimTemplates).toBeUndefined();
    expect(ephemeral.spec.template.spec.volumes.find((v: Doc) => v.name === 'credential').emptyDir).toEqual({});
  });
});

describe('images (deploy/images)', () => {
  const dockerfiles = ['coordinator', 'agent-cpu', 'agent-gpu'].map((d) => join(deploy, 'images', d, 'Dockerfile'));
  const workspaces: string[] = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;

  it('hadolint finds nothing', () => {
    for (const f of dockerfiles) ok(bin('hadolint'), ['--config', join(deploy, 'images/.hadolint.yaml'), f]);
  });

  it('copy what exists, and every workspace manifest npm ci checks the lock against', () => {
    for (const f of dockerfiles) {
      const text = readFileSync(f, 'utf8');
      for (const ws of workspaces) expect(text, `${f}: ${ws}/package.json`).toContain(`COPY ${ws}/package.json ${ws}/`);
      for (const m of text.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)) {
        for (const src of m[1]!.split(' ')) expect(existsSync(join(root, src)), `${f}: COPY ${src}`).toBe(true);
      }
      expect(existsSync(`${f}.dockerignore`), `${f}.dockerignore`).toBe(true);
    }
  });

  it('agent-gpu: the pinned ctranslate2 wheel loads cuBLAS 12 and the driver, and no cuDNN (why the base is the CUDA runtime image)', () => {
    const site = join(root, '.venv/lib');
    const py = readdirSync(site).find((d) => d.startsWith('python3'));
    const libs = join(site, py!, 'site-packages/ctranslate2.libs');
    const lib = readdirSync(libs).find((f) => f.startsWith('libctranslate2'));
    const bytes = readFileSync(join(libs, lib!)).toString('latin1');
    expect(bytes).toContain('libcublas.so.12');
    expect(bytes).toContain('libcuda.so.1');
    expect(bytes).not.toMatch(/cudnn/i);
  });

  describe('agent entrypoint: the enrollment token from a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'entrypoint-'));
    const stubs = join(dir, 'bin');
    mkdirSync(stubs);
    // A stand-in for node that prints what the agent would have been given.
    writeFileSync(
      join(stubs, 'node'),
      [
        '#!/bin/sh',
        'echo "args=$*"',
        'echo "token=$AGENT_ENROLLMENT_TOKEN"',
        '[ -n "$AGENT_ENROLLMENT_TOKEN_FILE" ] && echo "file=set" || echo "file=unset"',
        '',
      ].join('\n'),
    );
    chmodSync(join(stubs, 'node'), 0o755);
    const entrypoint = join(deploy, 'images/agent-entrypoint.sh');
    const start = (env: Env) => run('sh', [entrypoint], { env: { PATH: `${stubs}:/usr/bin:/bin`, AGENT_ENROLLMENT_WAIT_SECONDS: '0', ...env } });

    it('passes a waiting host its token, and nothing once it holds a credential', () => {
      writeFileSync(join(dir, 'token'), 'cre_abc\n');
      const first = start({ AGENT_CREDENTIAL_FILE: join(dir, 'none.json'), AGENT_ENROLLMENT_TOKEN_FILE: join(dir, 'token') });
      expect(first.status).toBe(0);
      expect(first.out).toContain('args=/opt/cutroom/render-agent/src/main.ts');
      expect(first.out).toContain('token=cre_abc\n');
      expect(first.out).toContain('file=unset');
      writeFileSync(join(dir, 'cred.json'), '{}');
      const later = start({ AGENT_CREDENTIAL_FILE: join(dir, 'cred.json'), AGENT_ENROLLMENT_TOKEN_FILE: join(dir, 'token') });
      expect(later.out).toContain('token=\n');
    });

    it('stops with a pointer to the docs when there is neither', () => {
      const r = start({ AGENT_CREDENTIAL_FILE: join(dir, 'none.json'), AGENT_ENROLLMENT_TOKEN_FILE: join(dir, 'missing') });
      expect(r.status).toBe(78);
      expect(r.err).toMatch(/no enrollment token .*deploy\/README\.md/);
    });
  });
});

describe('enrollment bootstrap (deploy/bin/mint-enrollment-tokens.mjs) against the admin API', () => {
  const ADMIN = `cro_${'d'.repeat(40)}`;
  let t: Awaited<ReturnType<typeof startTestApp>>;
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp();
    app = t.app;
    await ensureBootstrapOperator(t.ctx, ADMIN);
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });
  // Asynchronously: the coordinator that answers it runs in this process.
  const mint = (args: string[], env: Env = { COORDINATOR_URL: base, ADMIN_TOKEN: ADMIN }) =>
    new Promise<{ status: number; out: string; err: string }>((resolve) => {
      const script = join(deploy, 'bin/mint-enrollment-tokens.mjs');
      execFile(process.execPath, [script, ...args], { env: { ...process.env, ...env } }, (err, out, errOut) =>
        resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, out, err: errOut }),
      );
    });

  it('mints one token per agent, 0600, named after it, with the tags; skips an enrolled one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'enroll-'));
    const enrolled = join(dir, 'credentials');
    mkdirSync(join(enrolled, 'agent-b'), { recursive: true });
    writeFileSync(join(enrolled, 'agent-b/agent-credential.json'), '{}');
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out/agent-b'), 'cre_stale\n');
    const r = await mint(['--out', join(dir, 'out'), '--enrolled', enrolled, '--tags', 'cpu,region-eu', 'agent-a', 'agent-b']);
    expect(r.status, r.err).toBe(0);
    expect(r.out).toContain('agent-b: already enrolled');
    const token = readFileSync(join(dir, 'out/agent-a'), 'utf8').trim();
    expect(token).toMatch(/^cre_/);
    expect(statSync(join(dir, 'out/agent-a')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dir, 'out/agent-b'))).toBe(false);
    const list = await app.inject({ method: 'GET', url: '/admin/trpc/enrollment.list', headers: { authorization: `Bearer ${ADMIN}` } });
    const minted = list.json().result.data as { agent_id: string; tags: string[] }[];
    expect(minted.filter((m) => m.agent_id === 'agent-a')).toEqual([expect.objectContaining({ tags: ['cpu', 'region-eu'] })]);
    expect(minted.some((m) => m.agent_id === 'agent-b')).toBe(false);
  });

  it('fails loudly on a wrong operator token', async () => {
    const r = await mint(['--out', mkdtempSync(join(tmpdir(), 'enroll-')), 'agent-c'], { COORDINATOR_URL: base, ADMIN_TOKEN: `cro_${'x'.repeat(40)}` });
    expect(r.status).toBe(2);
    expect(r.err).toMatch(/agent-c: the admin API answered 401/);
  });
});
