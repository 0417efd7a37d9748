// schemathesis (PyPI, installed by `scripts/ensure-env.sh --test` into .tools/venv-fuzz) against a
// running coordinator's /openapi.json: shared by test/api-fuzz.test.ts (short) and `npm run fuzz`.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { AUDIO_CONTENT_TYPES, VIDEO_CONTENT_TYPES } from '@cutroom/shared/media-types';
import { librivoxUtterances } from './media.ts';
import type { Stack } from './stack.ts';

export const SCHEMATHESIS = resolve(import.meta.dirname, '../../.tools/venv-fuzz/bin/schemathesis');

/**
 * What every run checks; any failure fails it. not_a_server_error: no 5xx. status_code_conformance:
 * every status answered is declared for the operation. response_schema_conformance and
 * content_type_conformance: the body matches the declared schema and media type.
 */
export const FUZZ_CHECKS = ['not_a_server_error', 'status_code_conformance', 'response_schema_conformance', 'content_type_conformance'];

/** Real resources the generated calls may use, so that they get past 401/403/404 into the handlers. */
export interface FuzzSeed {
  /** Session token sent as `Authorization: Bearer` on every call. */
  token: string;
  /** A completed transcribe job with outputs, a job waiting for its upload, a job of another session. */
  jobIds: string[];
  /** The completed job's output roles. */
  roles: string[];
}

/**
 * Creates the seed data: a real transcribe job run to completion (needs one agent; a few seconds
 * of LibriVox speech; skipped with billing on, where it would need paying), a fresh job and a job
 * owned by another session.
 */
export async function seedFuzzData(stack: Stack): Promise<FuzzSeed> {
  const { api } = stack;
  const token = await api.newSession();
  const other = await api.newSession();
  let done: { job_id: string; outputs: { role: string }[] } | undefined;
  if (!stack.billing) {
    const utterance = librivoxUtterances()[0]!;
    const doneId = await api.submitTranscribe(token, utterance.file, 'utterance.wav', 'audio/wav');
    const job = await api.waitForJob(token, doneId);
    if (job.status !== 'completed') throw new Error(`seed job ${doneId} ended ${job.status}: ${job.error_message}`);
    done = job;
  }
  const create = async (t: string) => {
    const r = await api.call('POST', '/api/v1/jobs', { token: t, json: { job_type: 'transcribe', filename: 'talk.mp3', content_type: 'audio/mpeg' } });
    if (r.status !== 201) throw new Error(`POST /jobs → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.job_id as string;
  };
  return {
    token,
    jobIds: [...(done ? [done.job_id] : []), await create(token), await create(other)],
    roles: done ? done.outputs.map((o) => o.role) : ['transcript'],
  };
}

const tomlList = (values: readonly string[]) => `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;

/**
 * Checks switched off for one operation, each with the reason. Remove an entry once the document
 * declares what the operation answers.
 */
export const FUZZ_CHECK_EXCEPTIONS: { method: string; path: string; check: string; why: string }[] = [];

/**
 * Event streams (text/event-stream): one on a job that has not ended (the seed job waiting for its
 * upload) stays open until the job ends or for STREAM_MAX_MS (15 min). schemathesis reads a stream
 * until `max-stream-events` events carrying data or its request timeout, then closes it and checks
 * what it read (a stream cut short is no failure): one event is enough to check the status, the
 * media type and the body, and a stream with nothing to send yet (a resume past the job's last
 * event) is given up after 2 s instead of the usual 10. `include-name` (method and path in one
 * filter): separate include-method and include-path filters would match either.
 */
export const FUZZ_STREAM_OPERATIONS: { name: string; maxEvents: number; timeoutSeconds: number }[] = [
  { name: 'GET /api/v1/jobs/{id}/events', maxEvents: 1, timeoutSeconds: 2 },
];

/**
 * schemathesis.toml: the checks (FUZZ_CHECKS less FUZZ_CHECK_EXCEPTIONS), and dictionaries of real
 * values bound to parameters with a probability, so about half the generated values are real (job
 * ids, roles, formats, accepted media types, the built job type) and the rest are generated from the
 * schema as usual.
 */
export function fuzzConfig(seed: FuzzSeed): string {
  return [
    '[generation]',
    'allow-x00 = true # NUL in generated strings (the default, kept explicit: it found the first bug)',
    '[checks]',
    'enabled = false',
    ...FUZZ_CHECKS.map((c) => `${c}.enabled = true`),
    ...FUZZ_STREAM_OPERATIONS.flatMap((o) => [
      '[[operations]]',
      `include-name = "${o.name}"`,
      `max-stream-events = ${o.maxEvents}`,
      `request-timeout = ${o.timeoutSeconds}`,
    ]),
    ...FUZZ_CHECK_EXCEPTIONS.flatMap((e) => [
      `# ${e.why}`,
      '[[operations]]',
      // One filter naming both: separate include-method and include-path filters would match either.
      `include-name = "${e.method.toUpperCase()} ${e.path}"`,
      `checks.${e.check}.enabled = false`,
    ]),
    '[dictionaries.job_ids]',
    `values = ${tomlList(seed.jobIds)}`,
    '[dictionaries.roles]',
    `values = ${tomlList([...seed.roles, 'source'])}`,
    '[dictionaries.formats]',
    `values = ${tomlList(['srt', 'txt', 'vtt', 'json', 'words', 'edit'])}`,
    '[dictionaries.media_types]',
    `values = ${tomlList([...AUDIO_CONTENT_TYPES, ...VIDEO_CONTENT_TYPES])}`,
    // The one job type built so far: the others are refused before anything is stored.
    '[dictionaries.job_types]',
    `values = ${tomlList(['transcribe'])}`,
    '[parameters]',
    '"path.id" = { dictionary = "job_ids", probability = 0.5 }',
    '"path.role" = { dictionary = "roles", probability = 0.5 }',
    '"query.format" = { dictionary = "formats", probability = 0.5 }',
    '"body.content_type" = { dictionary = "media_types", probability = 0.5 }',
    '"body.job_type" = { dictionary = "job_types", probability = 0.5 }',
    '',
  ].join('\n');
}

export interface FuzzRunOptions {
  /** Test cases per operation and phase (schemathesis --max-examples). */
  maxExamples: number;
  /** Fixed for repeatable runs. */
  seed: number;
  /** 1 (default) keeps the order of calls, and so the server's state, the same from run to run. */
  workers?: number;
  /** Stream schemathesis's output to this process (npm run fuzz) instead of only returning it. */
  inherit?: boolean;
  /** Kill it after this long. */
  timeoutMs?: number;
  /** More schemathesis arguments (npm run fuzz -- …). */
  extraArgs?: string[];
}

export interface FuzzRunResult {
  exitCode: number;
  /** schemathesis's report (stdout and stderr). */
  output: string;
  /** "N generated" from its summary, or null if it did not get that far. */
  cases: number | null;
  seconds: number;
  command: string;
}

/** Runs schemathesis against `baseUrl`/openapi.json with the seed data; never throws on findings. */
export async function runSchemathesis(baseUrl: string, seed: FuzzSeed, opts: FuzzRunOptions): Promise<FuzzRunResult> {
  if (!existsSync(SCHEMATHESIS)) throw new Error(`${SCHEMATHESIS} is missing: run bash scripts/ensure-env.sh --test`);
  // Its own folder: the config file, and no .hypothesis/ or report folder lands in the repository.
  const work = mkdtempSync(join(tmpdir(), 'cutroom-fuzz-'));
  const config = join(work, 'schemathesis.toml');
  writeFileSync(config, fuzzConfig(seed));
  const args = [
    '--config-file',
    config,
    'run',
    `${baseUrl}/openapi.json`,
    '--url',
    baseUrl,
    '--header',
    `Authorization: Bearer ${seed.token}`,
    '--max-examples',
    String(opts.maxExamples),
    '--seed',
    String(opts.seed),
    '--workers',
    String(opts.workers ?? 1),
    '--generation-database',
    'none',
    '--continue-on-failure',
    '--request-timeout',
    '10',
    '--no-color',
    ...(opts.extraArgs ?? []),
  ];
  const started = Date.now();
  try {
    const child = execa(SCHEMATHESIS, args, {
      cwd: work,
      all: true,
      reject: false,
      timeout: opts.timeoutMs,
      env: { COLUMNS: '120', NO_COLOR: '1' },
      ...(opts.inherit ? { stdout: ['pipe', 'inherit'], stderr: ['pipe', 'inherit'] } : {}),
    });
    const result = await child;
    const output = result.all ?? '';
    const cases = /(\d+) generated/.exec(output);
    return {
      exitCode: result.exitCode ?? (result.timedOut ? 124 : 1),
      output: result.timedOut ? `${output}\n[schemathesis killed after ${opts.timeoutMs} ms]` : output,
      cases: cases ? Number(cases[1]) : null,
      seconds: (Date.now() - started) / 1000,
      command: `schemathesis ${args.map((a) => (a.startsWith('Authorization:') ? "'Authorization: Bearer …'" : a)).join(' ')}`,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
