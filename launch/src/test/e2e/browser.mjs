// The browser every web view test drives: Debian's chromium, headless, through playwright-core, with a
// fresh user-data folder each run (no cookie or cache of another run). Scripts print one JSON verdict
// on stdout; the Java IT that ran them asserts it. Screenshots go to launch/target/e2e/.
import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'target', 'e2e');

/** Opens a browser context; returns {context, page, errors, close}. Console errors and page errors are collected. */
export async function open() {
  const profile = mkdtempSync(join(tmpdir(), 'hyperprof-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.HYPERPROF_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run'],
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  page.on('console', m => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  page.on('pageerror', e => errors.push('page: ' + e.message));
  mkdirSync(SHOTS, { recursive: true });
  return {
    context, page, errors,
    async close() { await context.close(); rmSync(profile, { recursive: true, force: true }); },
  };
}

/** Waits until the page says it is drawn (body data-state=ready) or failed (error); returns the state. */
export async function settled(page) {
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 60000 });
  return page.evaluate(() => ({ state: document.body.dataset.state,
    status: (document.getElementById('hp-status') || {}).textContent || '' }));
}

/** Runs a test body, printing its verdict (or the failure) as JSON. */
export async function verdict(body) {
  let b;
  try {
    b = await open();
    const result = await body(b.page);
    result.errors = b.errors;
    process.stdout.write(JSON.stringify(result) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ failed: String(e && e.stack || e), errors: b ? b.errors : [] }) + '\n');
    process.exitCode = 1;
  } finally {
    if (b) await b.close();
  }
}
