import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type ConsoleMessage, type Page } from 'playwright-core';

/** Debian's chromium (scripts/ensure-env.sh --test installs it); playwright's own browser downloads do not work here. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export const hasChromium = (): boolean => existsSync(CHROMIUM_PATH);

/** A console message or page error the page is allowed to log (an expected 401, …). */
export type Allowed = (text: string, url: string) => boolean;

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Page errors, console errors and CSP violations seen so far (minus the allowed ones). */
  problems: string[];
  /** Saves a full-page PNG as `<dir>/<name>.png` and answers its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

// Runs in the page before its own scripts (injected over CDP, so the page's CSP does not apply to it).
const REPORT_CSP = `document.addEventListener('securitypolicyviolation', (e) => {
  console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber);
});`;

/**
 * Headless Debian chromium through playwright-core, a fresh profile and one page that records
 * every page error, console error and CSP violation (a test fails on them).
 */
export async function openBrowser(opts: { screenshotDir: string; allow?: Allowed; viewport?: { width: number; height: number } }): Promise<BrowserSession> {
  if (!hasChromium()) throw new Error(`no chromium at ${CHROMIUM_PATH}: run \`bash scripts/ensure-env.sh --test\` (Debian's chromium package)`);
  mkdirSync(opts.screenshotDir, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1440, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
  await context.addInitScript(REPORT_CSP);
  const page = await context.newPage();
  const problems: string[] = [];
  const allow = opts.allow ?? (() => false);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg: ConsoleMessage) => {
    if (msg.type() !== 'error') return;
    const url = msg.location().url;
    if (!allow(msg.text(), url)) problems.push(`console error: ${msg.text()} (${url})`);
  });
  return {
    browser,
    context,
    page,
    problems,
    async screenshot(name) {
      const path = join(opts.screenshotDir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
    },
  };
}
