import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { asc, eq } from 'drizzle-orm';
import { jobEvents, ledgerEntries } from '../coordinator/src/db/schema.ts';
import { type BrowserSession, openBrowser } from './harness/browser.ts';
import { librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
const SCREENSHOTS = process.env['SCREENSHOT_DIR'] ?? join(repo, '.tools/screenshots/admin-console');
const AGENT = 'test-agent-1';
const ACTIVE = ['extracting_audio', 'transcribing', 'analyzing'];
/** Live views re-read every 1 s (money every 2 s): a poll allows several rounds on two busy cores. */
const LIVE = { timeout: 15_000, interval: 200 };

/**
 * The operators' console in a real browser (Debian chromium, headless) against the whole stack,
 * built first (scripts/build-admin-console.sh): log-in, the farm live (tags, adding a host), a job
 * followed from the queue to completion without a reload, its timeline at its own URL, the books
 * (a failed refund resolved), an agent drained (a new job waits; cancelled and retried from its
 * page) then resumed (the job runs), operators added and revoked, log-out. Every page error,
 * console error and CSP violation fails the test. Screenshots go to .tools/screenshots/admin-console
 * (SCREENSHOT_DIR overrides); CONSOLE_TEST_AGENT_LOG=debug shows the agent's log.
 */
describe('operators’ console in a browser', () => {
  let stack: Stack;
  let b: BrowserSession;
  let base: string;
  let session: string;
  const speech = librivoxUtterances()[0]!.file;
  const shots: string[] = [];
  const shot = async (name: string) => shots.push(await b.screenshot(name));

  beforeAll(async () => {
    const [, started] = await Promise.all([
      execa('bash', [join(repo, 'scripts/build-admin-console.sh')]),
      startStack({ storage: 'local', agents: 1, agentEnv: process.env['CONSOLE_TEST_AGENT_LOG'] ? { LOG_LEVEL: process.env['CONSOLE_TEST_AGENT_LOG'] } : {} }),
    ]);
    stack = started;
    base = `${stack.coordinator.url}/admin`;
    session = await stack.api.newSession();
    b = await openBrowser({
      screenshotDir: SCREENSHOTS,
      // Asking who is logged in before log-in, and the wrong token, are answered 401: the browser logs both.
      allow: (text, url) => /status of 401/.test(text) && (url.includes('/admin/api/login') || url.includes('/admin/trpc/operators.me')),
    });
  });
  afterAll(async () => {
    await b?.close();
    await stack?.stop();
    if (shots.length) console.log(`admin console screenshots:\n  ${shots.join('\n  ')}`);
  });
  afterEach(() => {
    expect(b.problems.splice(0)).toEqual([]);
  });

  const tab = (name: string) => b.page.locator('.tabs').getByRole('link', { name, exact: true }).click();
  const agentCard = () => b.page.locator(`[data-agent-id="${AGENT}"]`);
  /** A job row's status cell as words: `extracting_audio queued`, `completed`. */
  const statusOf = async (id: string) => (await b.page.locator(`tr[data-job-id="${id}"] td.status .badge`).allTextContents()).join(' ');
  const row = (id: string) => b.page.locator(`tr[data-job-id="${id}"]`);

  it('refuses a wrong token, then logs in with the operator token (httpOnly cookie)', async () => {
    const { page } = b;
    await page.goto(base);
    await page.locator('input[name="token"]').waitFor();
    await shot('01-login');
    await page.fill('input[name="token"]', 'cro_not_an_operator_token');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), LIVE).toMatch(/unknown or revoked operator token/);

    await page.fill('input[name="token"]', stack.adminToken);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.locator('.topbar .operator').textContent(), LIVE).toBe('admin');
    const cookie = (await b.context.cookies()).find((c) => c.name === 'cutroom_admin');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
  });

  it('shows the agent online with its capabilities, live', async () => {
    const card = agentCard();
    await expect.poll(() => card.locator('.card-head .badge').first().textContent(), { ...LIVE, timeout: 60_000 }).toBe('online');
    // Enrolled first (a row, no capabilities), then registered: its capabilities arrive live.
    await expect.poll(() => card.locator('.caps').textContent(), { ...LIVE, timeout: 60_000 }).toMatch(/whisper cpu · tiny\.en/);
    const caps = await card.locator('.caps').textContent();
    expect(caps).toMatch(/\d+ cores/);
    expect(caps).toMatch(/free/);
    expect(caps).toMatch(/transcribe/);
    expect(await card.textContent()).toMatch(/no job running/);
    await expect.poll(() => b.page.locator('.count-online b').textContent(), LIVE).toBe('1');
    await shot('02-farm');

    // Tags are edited in place.
    await card.getByRole('button', { name: 'edit' }).click();
    await card.getByLabel('tags, separated by spaces').fill('cpu-pool eu');
    await card.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => card.locator('.tags').textContent(), LIVE).toMatch(/#cpu-pool.*#eu/);

    // Adding a host: a one-use token and the one command to run there.
    await b.page.getByRole('button', { name: 'Add a host' }).click();
    const dialog = b.page.getByRole('dialog');
    await dialog.getByLabel(/Agent name/).fill('gpu-box-9');
    await dialog.getByLabel(/Tags/).fill('gpu');
    await dialog.getByRole('button', { name: 'Create enrollment token' }).click();
    await expect.poll(() => dialog.getByTestId('enroll-command').textContent(), LIVE).toMatch(/AGENT_ENROLLMENT_TOKEN=cre_\S+ npm run agent/);
    await shot('03-add-host');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => b.page.locator('.enrollments summary').textContent(), LIVE).toMatch(/1 unused/);
  });

  let firstJob = '';

  it('follows a job in the Jobs list from the queue to completed, live, without a reload', async () => {
    const { page } = b;
    await tab('Jobs');
    await page.waitForURL(/\/admin\/jobs$/);
    await page.evaluate('window.__sameDocument = true');
    firstJob = await stack.api.submitTranscribe(session, speech, 'dashwood.wav', 'audio/wav');
    await row(firstJob).waitFor({ timeout: 15_000 });
    // Every status the cell shows until the job is done, read as the page updates itself.
    const seen: string[] = [];
    let runningShot = false;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const text = await statusOf(firstJob);
      if (seen.at(-1) !== text) seen.push(text);
      if (!runningShot && /transcribing|extracting_audio/.test(text) && !/queued/.test(text)) {
        runningShot = true;
        await shot('04-jobs-running');
      }
      if (/completed|failed/.test(text) || Date.now() > deadline) break;
      await page.waitForTimeout(150);
    }
    expect(seen.at(-1)).toBe('completed');
    expect(
      seen.some((s) => ACTIVE.some((a) => s.startsWith(a))),
      `statuses seen: ${seen.join(' → ')}`,
    ).toBe(true);
    expect(await page.evaluate('window.__sameDocument === true'), 'the page reloaded').toBe(true);
    expect(await page.locator(`tr[data-job-id="${firstJob}"] td.num`).textContent()).toBe('1');
    await shot('05-jobs');

    // Filters re-subscribe with the new input.
    await page.selectOption('select[name="status"]', 'failed');
    await expect.poll(() => page.locator('.empty').textContent(), LIVE).toBe('No job matches.');
    await page.selectOption('select[name="status"]', 'completed');
    await page.selectOption('select[name="agent"]', AGENT);
    await row(firstJob).waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
  });

  it('opens the job’s timeline at its own URL, which also loads directly', async () => {
    const { page } = b;
    await page.locator(`tr[data-job-id="${firstJob}"] td a.mono`).click();
    await page.waitForURL(`**/admin/jobs/${firstJob}`);
    await expect.poll(() => page.getByTestId('job-status').textContent(), LIVE).toBe('completed');
    await expect.poll(() => page.locator('table.attempts').textContent(), LIVE).toMatch(new RegExp(`${AGENT}.*completed`));
    const events = (await page.locator('table.events').textContent()) ?? '';
    for (const s of ['uploading', 'extracting_audio', 'transcribing', 'completed']) expect(events).toContain(s);
    expect(await page.locator('table.outputs').textContent()).toMatch(/transcript/);
    await shot('06-job-timeline');

    await page.reload();
    await expect.poll(() => page.getByTestId('job-status').textContent(), LIVE).toBe('completed');
    await page.goBack();
    await page.goForward();
  });

  it('shows the books per day and rail, and resolves a failed refund with a note', async () => {
    const { page } = b;
    // Billing is off in this stack: the rows the view reads are written here, one per rail and a failed refund.
    const now = new Date();
    const entry = (p: { rail: string; kind: string; state: string; amount: bigint; currency: string; key: string; lastError?: string }) => ({
      jobId: firstJob,
      rail: p.rail,
      kind: p.kind,
      state: p.state,
      amount: p.amount,
      currency: p.currency,
      idempotencyKey: `console-test-${p.key}`,
      lastError: p.lastError ?? null,
      attempts: p.state === 'failed' ? 5 : 1,
      reference: p.state === 'done' ? `ref_${p.key}` : null,
      createdAt: now,
      updatedAt: now,
    });
    const [, , failed] = await stack.coordinator.ctx.db
      .insert(ledgerEntries)
      .values([
        entry({ rail: 'chain', kind: 'charge', state: 'done', amount: 1_250_000n, currency: 'USDC', key: 'chain-charge' }),
        entry({ rail: 'card', kind: 'charge', state: 'done', amount: 125n, currency: 'usd', key: 'card-charge' }),
        entry({
          rail: 'card',
          kind: 'refund',
          state: 'failed',
          amount: 125n,
          currency: 'usd',
          key: 'card-refund',
          lastError: 'card processor refused: expired card',
        }),
      ])
      .returning({ id: ledgerEntries.id });
    await tab('Money');
    await page.waitForURL(/\/admin\/money$/);
    await expect.poll(() => page.locator('table.totals').textContent(), LIVE).toMatch(/1\.25 USDC/);
    expect(await page.locator('table.totals').textContent()).toMatch(/\$1\.25/);
    const failedRow = page.locator(`tr[data-ledger-id="${failed!.id}"]`);
    await failedRow.waitFor();
    expect(await failedRow.textContent()).toMatch(/expired card/);
    await shot('07-money');

    await failedRow.getByRole('button', { name: 'Resolve' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('textarea').fill('refunded by hand from the processor dashboard');
    await dialog.getByRole('button', { name: 'Resolve' }).click();
    await expect.poll(() => failedRow.count(), LIVE).toBe(0);
    await expect.poll(() => page.getByRole('status').first().textContent(), LIVE).toMatch(/recorded as settled/);
  });

  let waiting = '';

  it('drains the agent: its badge turns drained and a new job stays queued, with no attempt', async () => {
    const { page } = b;
    await tab('Farm');
    await agentCard().getByRole('button', { name: 'Drain' }).click();
    await expect.poll(() => agentCard().locator('.card-head .badge').first().textContent(), LIVE).toBe('drained');
    await expect.poll(() => page.locator('.count-drained b').textContent(), LIVE).toBe('1');
    await shot('08-farm-drained');

    waiting = await stack.api.submitTranscribe(session, speech, 'while-drained.wav', 'audio/wav');
    await tab('Jobs');
    await row(waiting).waitFor();
    await expect.poll(() => statusOf(waiting), LIVE).toBe('extracting_audio queued');
    // The agent is offered the job, is refused (drained) and stops pulling: the job stays queued.
    await page.waitForTimeout(6_000);
    expect(await statusOf(waiting)).toBe('extracting_audio queued');
    expect(await row(waiting).locator('td.num').textContent()).toBe('0');
    await tab('Queue');
    await expect.poll(() => page.locator('tr[data-kind="transcribe"] td.queued').textContent(), LIVE).toBe('1');
    expect(await page.locator('tr[data-kind="transcribe"]').textContent()).toMatch(/nothing can take these jobs/);
    await shot('09-queue-drained');
  });

  it('cancels the waiting job with a note, then retries it from its page', async () => {
    const { page } = b;
    await page.goto(`${base}/jobs/${waiting}`);
    await expect.poll(() => page.getByTestId('job-status').textContent(), LIVE).toBe('extracting_audio');
    expect(await page.locator('.job-page').textContent()).toMatch(/No agent has claimed this job/);
    await page.getByRole('button', { name: 'Cancel job' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('textarea').fill('wrong file, the caller asked');
    await dialog.getByRole('button', { name: 'Cancel job' }).click();
    await expect.poll(() => page.getByTestId('job-status').textContent(), LIVE).toBe('failed');
    await expect.poll(() => page.locator('.job-error').textContent(), LIVE).toMatch(/operator_cancelled.*wrong file/);
    await expect.poll(() => page.locator('table.actions-table').textContent(), LIVE).toMatch(/admin.*job\.cancel/);
    await shot('10-job-cancelled');

    await page.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => page.getByTestId('job-status').textContent(), LIVE).toBe('extracting_audio');
    await expect.poll(() => page.locator('.page-head .badge-amber').textContent(), LIVE).toBe('queued');
  });

  it('resumes the agent: the waiting job runs and completes, live in the Jobs list', async () => {
    await tab('Farm');
    await agentCard().getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => agentCard().locator('.card-head .badge').first().textContent(), LIVE).toMatch(/online|busy/);
    // The card shows the job it runs with its progress (a short job: caught when the live view is quick enough).
    await agentCard()
      .locator('.current-job')
      .waitFor({ timeout: 10_000 })
      .then(() => shot('12-farm-busy'))
      .catch(() => undefined);
    await tab('Jobs');
    await expect
      .poll(() => statusOf(waiting), { timeout: 120_000, interval: 500 })
      .toBe('completed')
      .catch(async (err: unknown) => {
        // What the job went through, for the report: the page may be right and the farm stuck, or the reverse.
        const events = await stack.coordinator.ctx.db.select().from(jobEvents).where(eq(jobEvents.jobId, waiting)).orderBy(asc(jobEvents.id));
        console.log(`job ${waiting} events:\n${events.map((e) => `  ${e.createdAt.toISOString()} ${e.fromStatus} → ${e.toStatus}: ${e.reason}`).join('\n')}`);
        throw err;
      });
    expect(await row(waiting).locator('td.num').textContent()).toBe('1');
  });

  it('adds an operator (the token shown once) and revokes them; every action is listed with who took it', async () => {
    const { page } = b;
    await tab('Operators');
    await expect
      .poll(() => page.locator('table.actions-table').textContent(), LIVE)
      .toMatch(/agent\.resume.*job\.retry.*job\.cancel.*agent\.drain.*refund\.resolve/);
    await page.getByLabel("new operator's name").fill('bob');
    await page.getByRole('button', { name: 'Add operator' }).click();
    await expect.poll(() => page.getByTestId('operator-token').textContent(), LIVE).toMatch(/^cro_\S{20,}$/);
    await shot('11-operators');
    const bob = page.locator('table.operators tr', { hasText: 'bob' });
    await bob.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => bob.locator('.badge').textContent(), LIVE).toMatch(/^revoked/);
  });

  it('logs out: back to the log-in page, and a reload stays there', async () => {
    const { page } = b;
    await page.locator('.topbar').getByRole('button', { name: 'Log out' }).click();
    await page.locator('input[name="token"]').waitFor();
    await page.reload();
    await page.locator('input[name="token"]').waitFor();
    expect(await page.locator('.topbar').count()).toBe(0);
  });
});
