// The video host consent in a real browser (Debian's chromium, headless), against the stack's
// coordinator and the video host fake's own consent page: what the cookie binding (SameSite=Lax on
// the host's redirect back), the same-origin check on Continue (the Origin / Sec-Fetch-Site
// chromium really sends) and the pages rely on, checked where only a browser can check them. The
// attack of issue 23 item 4 is played with two browser profiles: the attacker's and the victim's.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserSession, openBrowser } from './harness/browser.ts';
import { startStack, type Stack } from './harness/stack.ts';

describe('video host consent in chromium', () => {
  let stack: Stack;
  let attacker: BrowserSession;
  let victim: BrowserSession;
  const shots = join(tmpdir(), 'cutroom-consent-shots');

  beforeAll(async () => {
    stack = await startStack({ videoHost: true, agents: 0, storage: 'local' });
    // The refusals are 400 pages by design; a browser asks every host for a favicon neither has.
    const allow = (text: string, url: string) => /status of 400/.test(text) || url.endsWith('/favicon.ico');
    attacker = await openBrowser({ screenshotDir: shots, allow });
    victim = await openBrowser({ screenshotDir: shots, allow });
  }, 120_000);
  afterAll(async () => {
    await attacker?.close();
    await victim?.close();
    await stack?.stop();
  });

  const request = async (token: string) => {
    const r = await stack.api.call('POST', '/api/v1/connections/video-host', { token });
    expect(r.status).toBe(201);
    return r.body.connection_request as { authorize_url: string; session_label: string };
  };
  const connections = async (token: string) => (await stack.api.call('GET', '/api/v1/connections', { token })).body.connections as { status: string }[];

  it('connects in the browser that started it: the start page names the session, the host sends it back, the revoke link works once', async () => {
    const token = await stack.api.newSession();
    const req = await request(token);
    const { page } = victim;
    await page.goto(req.authorize_url);
    expect(await page.textContent('body')).toContain(`cutroom session ${req.session_label}`);
    await victim.screenshot('start-page');
    await page.getByRole('button', { name: 'Continue to the video host' }).click();
    // The fake's consent page, on the host's origin.
    await page.locator('#allow').waitFor();
    expect(new URL(page.url()).origin).toBe(new URL(stack.videoHost!.url).origin);
    await page.locator('#allow').click();
    await page.getByRole('heading', { name: 'Connected' }).waitFor();
    expect(await page.textContent('body')).toContain(`connected to cutroom session ${req.session_label}`);
    expect((await connections(token)).map((c) => c.status)).toEqual(['active']);

    await page.getByRole('link', { name: 'Disconnect this channel' }).click();
    await page.getByRole('heading', { name: 'Disconnect a video channel' }).waitFor();
    // Opening the link changed nothing; the button does.
    expect((await connections(token)).map((c) => c.status)).toEqual(['active']);
    const link = page.url();
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('heading', { name: 'Disconnected' }).waitFor();
    expect((await connections(token)).map((c) => c.status)).toEqual(['revoked']);
    await page.goto(link);
    expect(await page.textContent('body')).toMatch(/used|no longer|unknown/i);
    expect(victim.problems).toEqual([]);
  });

  it('the attack fails: a host link from a request the attacker opened, approved in the victim’s browser, connects nothing', async () => {
    const attackerToken = await stack.api.newSession();
    const req = await request(attackerToken);
    await attacker.page.goto(req.authorize_url);
    await attacker.page.getByRole('button', { name: 'Continue to the video host' }).click();
    await attacker.page.locator('#allow').waitFor();
    const hostLink = attacker.page.url();
    // The victim opens what the attacker sent, and consents at the (real-looking) host.
    await victim.page.goto(hostLink);
    await victim.page.locator('#allow').click();
    await victim.page.waitForURL(/\/connections\/video-host\/callback/);
    expect(await victim.page.textContent('body')).toMatch(/not started in this browser/);
    await victim.screenshot('refused-callback');
    expect(await connections(attackerToken)).toEqual([]);
    // The same start link, forwarded after the attacker opened it, is refused in the victim's browser.
    await victim.page.goto(req.authorize_url);
    expect(await victim.page.textContent('body')).toMatch(/already (opened|used)|make a new/i);
    expect(await connections(attackerToken)).toEqual([]);
  });
});
