import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, ledgerEntries } from '../coordinator/src/db/schema.ts';
import { chainPayer } from './harness/chain-payer.ts';
import { concatWavs, librivoxUtterances, makeVideo } from './harness/media.ts';
import { probeStreams, streamOf } from './harness/probe.ts';
import { startStack, type Stack } from './harness/stack.ts';
import { TmuxTerminal } from './harness/tmux.ts';
import { undecodableMp4 } from './harness/bad-media.ts';

const CUTROOM = join(import.meta.dirname, '..', 'cli', 'bin', 'cutroom');
const PANE_FILE = join(tmpdir(), 'cutroom-cli-flow-pane.txt');

/**
 * The `cutroom` command-line client against the whole stack with billing on (local chain with the
 * test token, card processor fake): run in a real 120x30 terminal (tmux) it shows an upload bar
 * and a processing bar and pays with a wallet key through the stock mppx client; run with its
 * output piped (execa) it prints plain lines. status, download, cut (from the completed job),
 * clips and summarize; a failed job exits 1; an upload interrupted with Ctrl-C is continued by
 * running the same command again: the same job, one payment (card checkout, paid once).
 */
describe('cutroom CLI', () => {
  let stack: Stack;
  let payer: ReturnType<typeof chainPayer>;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-cli-'));
  const configDir = join(work, 'config');
  let env: Record<string, string>;
  let transcribedJob: string;

  /** The CLI with piped output (stdout is not a TTY: plain progress lines). */
  const cli = (args: string[], extraEnv: Record<string, string> = {}) =>
    execa(CUTROOM, args, { cwd: work, env: { ...env, ...extraEnv }, reject: false, timeout: 120_000 });
  const session = () => JSON.parse(readFileSync(join(configDir, 'session.json'), 'utf8'))[stack.coordinator.url] as { token: string; session_id: string };
  const records = () => JSON.parse(readFileSync(join(configDir, 'jobs.json'), 'utf8')).jobs as { job_id: string; file?: { path: string }; stage: string }[];
  const ledger = (jobId: string) => stack.coordinator.ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, jobId));

  beforeAll(async () => {
    const speech = join(work, 'speech.wav');
    await concatWavs(
      librivoxUtterances().map((u) => u.file),
      speech,
    );
    await makeVideo(speech, join(work, 'talk.mp4'));
    // About 1 MB: at --limit-rate 100K its upload takes ~10 s, time enough to interrupt it.
    await makeVideo(speech, join(work, 'lecture.mp4'), { pattern: 'testsrc2=size=640x360:rate=25', videoKbps: 300 });
    // Media the agent cannot decode (an MP4 signature, then noise): accepted at complete-upload, failed and refunded by the agent.
    writeFileSync(join(work, 'junk.wav'), undecodableMp4(64 * 1024));
    stack = await startStack({ billing: true, agents: 1 });
    payer = chainPayer(stack.billing!);
    env = { CUTROOM_URL: stack.coordinator.url, CUTROOM_CONFIG_DIR: configDir, CUTROOM_WALLET_KEY: stack.billing!.payer.privateKey };
  });
  afterAll(async () => {
    await TmuxTerminal.killServer();
    await stack?.stop();
  });

  it('transcribes a talk in a terminal: paid by the wallet key, upload and processing bars to 100%, an SRT written', async () => {
    const before = await payer.balanceOf(payer.address);
    const term = await TmuxTerminal.start('transcribe', [CUTROOM, 'transcribe', 'talk.mp4', '--format', 'srt'], { cwd: work, env });
    const { code, screen } = await term.exit(120_000);
    writeFileSync(PANE_FILE, `$ cutroom transcribe talk.mp4 --format srt\n${screen}\n`);
    console.log(`captured pane (${PANE_FILE}):\n${screen}`);
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/job [0-9a-f-]{36} \(transcribe\) created/);
    expect(screen).toMatch(/paying 0\.70 USDC for job [0-9a-f]{8} from 0x[0-9a-fA-F]{40} \(chain rail\)/);
    expect(screen).toMatch(/upload\s+█{30} 100% \| [\d.]+ KB \/ [\d.]+ KB \| .+\/s \| ETA 0s/);
    expect(screen).toMatch(/completed\s+█{30} 100%/);
    expect(screen).toContain(`transcript ${join(work, 'talk.srt')}`);
    const srt = readFileSync(join(work, 'talk.srt'), 'utf8');
    expect(srt).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> /);
    expect(srt.toLowerCase()).toContain('dashwood');
    expect(before - (await payer.balanceOf(payer.address))).toBe(700_000n);
    transcribedJob = /job ([0-9a-f-]{36}) \(transcribe\) created/.exec(screen)![1]!;
    await term.kill();
  });

  it('shows the status and downloads outputs (plain output when piped; job ids shortened)', async () => {
    const short = transcribedJob.slice(0, 8);
    const status = await cli(['status', short]);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain(`job        ${transcribedJob}`);
    expect(status.stdout).toMatch(/status\s+completed/);
    expect(status.stdout).toMatch(/payment\s+paid/);
    expect(status.stdout).toMatch(/outputs\s+transcript/);
    const json = await cli(['status', transcribedJob, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ job_id: transcribedJob, status: 'completed', job_type: 'transcribe' });
    // The session's jobs from the service's list: the transcribe job, newest first, by its short id.
    const jobs = await cli(['jobs', '--type', 'transcribe']);
    expect(jobs.exitCode, jobs.stderr).toBe(0);
    expect(jobs.stdout).toMatch(new RegExp(`^${short}\\s+transcribe\\s+completed\\s+paid\\s`, 'm'));
    const listed = JSON.parse((await cli(['jobs', '--json', '--all'])).stdout);
    expect(listed.jobs.map((j: { job_id: string }) => j.job_id)).toContain(transcribedJob);
    expect((await cli(['jobs', '--status', 'failed'])).stdout.trim()).toBe('no jobs');

    const vtt = await cli(['download', short, '--format', 'vtt', '-o', 'dl']);
    expect(vtt.exitCode, vtt.stderr).toBe(0);
    expect(vtt.stdout.trim()).toBe(`transcript ${join(work, 'dl', 'talk.vtt')}`);
    expect(readFileSync(join(work, 'dl', 'talk.vtt'), 'utf8')).toMatch(/^WEBVTT/);
    const words = await cli(['download', short, '--role', 'transcript', '--format', 'words', '-o', 'dl']);
    expect(words.exitCode, words.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(work, 'dl', 'talk.words.json'), 'utf8')).segments.length).toBeGreaterThan(0);

    // Errors are one message and an exit code, never a stack trace.
    const missing = await cli(['download', short, '--role', 'clip']);
    expect([missing.exitCode, missing.stderr]).toEqual([2, expect.stringContaining('has no "clip" output')]);
    const unknown = await cli(['status', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.exitCode).toBe(4);
    expect(unknown.stderr).toMatch(/^cutroom: reading job .*not found.*\(HTTP 404\)/);
    expect(unknown.stderr).not.toMatch(/\bat \S+\.ts:\d+/);
    const usage = await cli(['cut', short, '--start', '5']);
    expect([usage.exitCode, usage.stderr]).toEqual([2, expect.stringContaining('--end <seconds> is required')]);
  });

  it('cuts a clip from the completed job: paid at /process, an mp4 of the window', async () => {
    const before = await payer.balanceOf(payer.address);
    const cut = await cli(['cut', transcribedJob.slice(0, 8), '--start', '2.5', '--end', '9', '-o', 'cuts']);
    expect(cut.exitCode, cut.stderr).toBe(0);
    expect(cut.stderr).toMatch(/paying 0\.20 USDC/);
    expect(cut.stderr).toContain('processing: completed 100%');
    const file = join(work, 'cuts', 'talk.clip-2.5-9.mp4');
    expect(cut.stdout.trim()).toBe(`clip       ${file}`);
    const probe = await probeStreams(file);
    expect(streamOf(probe, 'video')?.codec_name).toBe('h264');
    expect(streamOf(probe, 'audio')).toBeDefined();
    expect(probe.duration).toBeGreaterThan(6.3);
    expect(probe.duration).toBeLessThan(6.8);
    expect(before - (await payer.balanceOf(payer.address))).toBe(200_000n);
  });

  it('prints clip candidates (clips) and a summary (summarize), writing their JSON', async () => {
    const clips = await cli(['clips', 'talk.mp4']);
    expect(clips.exitCode, clips.stderr).toBe(0);
    expect(clips.stdout).toContain(`clips      ${join(work, 'talk.clips.json')}`);
    // 27 s of speech, one topic, shorter than a 2-minute candidate: the default fits the topic
    // instead (one candidate, the whole talk), printed with its cut line; the service's note says why.
    expect(clips.stdout).toMatch(/1 clip candidates, best first:\n\n#1 {2}\d:\d\d(\.\d)?-\d:\d\d(\.\d)? {2}\(\d+s\) {2}score \d+ {2}\[c1\]/);
    expect(clips.stdout).toMatch(/cut: cutroom cut [0-9a-f]{8} --start [\d.]+ --end [\d.]+ \[--vertical\]/);
    expect(clips.stdout).toMatch(/note: no topic lasts 120 s, the shortest default clip/);
    const doc = JSON.parse(readFileSync(join(work, 'talk.clips.json'), 'utf8'));
    expect(doc).toMatchObject({ version: 1, mode: 'best', target: { requested: null, min_seconds: 15, max_seconds: 300 } });
    expect(doc.candidates).toHaveLength(1);
    const summary = await cli(['summarize', 'speech.wav', '-o', 'summary']);
    expect(summary.exitCode, summary.stderr).toBe(0);
    expect(summary.stdout).toContain(`summary    ${join(work, 'summary', 'speech.summary.json')}`);
    expect(summary.stdout).toMatch(/Key points:\n {2}- /);
    expect(summary.stdout).toMatch(/Chapters:\n\s+0:00 {2}\S/);
  });

  it('exits 1 when the job fails, and says it was refunded', async () => {
    const failed = await cli(['transcribe', 'junk.wav']);
    expect(failed.exitCode, failed.stderr).toBe(1);
    expect(failed.stderr).toMatch(/cutroom: job [0-9a-f-]{36} failed: .+\(the payment is refunded\)/);
  });

  it('continues an interrupted upload when the same command runs again: same job, paid once (card checkout)', async () => {
    const cardEnv = { ...env, CUTROOM_WALLET_KEY: '' };
    const first = await TmuxTerminal.start('interrupted', [CUTROOM, 'transcribe', 'lecture.mp4', '--limit-rate', '100K'], { cwd: work, env: cardEnv });
    // No wallet: the hosted checkout URL is printed; the buyer pays it (here: the card fake's pay action).
    const { match } = await first.waitFor(/\/c\/pay\/(cs_test_\w+)/, 60_000);
    const pay = await fetch(`${stack.billing!.stripe.url}/__fake/checkout/sessions/${match[1]}/pay`, { method: 'POST' });
    expect(pay.status).toBe(200);
    await first.waitFor(/upload\s+█*░+ ([2-8]\d)%/, 60_000);
    await first.sendKeys('C-c');
    const stopped = await first.exit(15_000);
    writeFileSync(PANE_FILE, `\n$ cutroom transcribe lecture.mp4 --limit-rate 100K   (Ctrl-C during the upload)\n${stopped.screen}\n`, { flag: 'a' });
    expect(stopped.code, stopped.screen).toBe(130);
    expect(stopped.screen).toContain('cutroom: interrupted during upload');
    const record = records().find((r) => r.file?.path === join(work, 'lecture.mp4'))!;
    expect(record.stage).toBe('paid');
    const jobId = record.job_id;
    expect(stopped.screen).toContain(`job ${jobId} is kept; the same command (or \`cutroom resume ${jobId.slice(0, 8)}\`) continues it`);
    const mid = await stack.api.call('GET', `/api/v1/jobs/${jobId}`, { token: session().token });
    expect(mid.body).toMatchObject({ status: 'uploading', payment_status: 'paid' });

    const listed = await cli(['resume'], { CUTROOM_WALLET_KEY: '' });
    expect(listed.stdout).toMatch(new RegExp(`${jobId.slice(0, 8)}\\s+transcribe\\s+uploading\\s+upload not completed\\s+${join(work, 'lecture.mp4')}`));

    const again = await TmuxTerminal.start('resumed', [CUTROOM, 'transcribe', 'lecture.mp4'], { cwd: work, env: cardEnv });
    const done = await again.exit(120_000);
    writeFileSync(PANE_FILE, `\n$ cutroom transcribe lecture.mp4   (the same command again)\n${done.screen}\n`, { flag: 'a' });
    expect(done.code, done.screen).toBe(0);
    expect(done.screen).toContain(`continuing job ${jobId} (upload not completed)`);
    expect(done.screen).not.toContain('needs payment');
    expect(done.screen).toMatch(/upload\s+█{30} 100%/);
    expect(done.screen).toMatch(/completed\s+█{30} 100%/);
    expect(readFileSync(join(work, 'lecture.srt'), 'utf8').toLowerCase()).toContain('dashwood');
    // One job for the file, one card charge for it.
    const { session_id } = session();
    const lectureJobs = await stack.coordinator.ctx.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.sessionId, session_id), eq(jobs.originalFilename, 'lecture.mp4')));
    expect(lectureJobs.map((j) => j.id)).toEqual([jobId]);
    expect((await ledger(jobId)).map((r) => [r.kind, r.rail, r.amount, r.state])).toEqual([['charge', 'card', 100n, 'done']]);
    expect((await cli(['resume'])).stdout.trim()).toBe(`nothing to resume on ${stack.coordinator.url}`);
    await Promise.all([first.kill(), again.kill()]);
  });
});
