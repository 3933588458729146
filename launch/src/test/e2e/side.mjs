// What the fleet, study, live and annotate browser scripts share: Debian's chromium driven by playwright-core
// (headless, a fresh profile), the page opened at the address hp:serve printed (its token sets the cookie),
// a screenshot in launch/target/e2e, and one JSON verdict line on stdout for the JUnit IT to check.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const shots = join(here, '..', '..', '..', 'target', 'e2e');

/** Runs work(page, base) against the address given as the first argument; prints its verdict. */
export async function run(work) {
  const address = process.argv[2];
  if (!address) {
    console.log(JSON.stringify({ ok: false, error: 'give the address hp:serve printed' }));
    process.exit(2);
  }
  mkdirSync(shots, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.HYPERPROF_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run'],
  });
  const problems = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    page.on('pageerror', e => problems.push('page error: ' + e.message));
    // A refused request is the page's to show; a script error or a CSP violation is a fault.
    page.on('console', m => { if (m.type() === 'error' && /Content Security Policy|Uncaught/.test(m.text())) problems.push('console: ' + m.text()); });
    await page.goto(address); // sets the cookie; the pages are then opened without the token
    const base = new URL(address).origin;
    const verdict = await work(page, base, process.argv.slice(3));
    console.log(JSON.stringify({ ok: problems.length === 0, problems, ...verdict }));
  } catch (e) {
    console.log(JSON.stringify({ ok: false, error: String(e && e.stack || e), problems }));
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
}

/** The cells' text of a table's rows. */
export async function rows(page, selector) {
  return page.$$eval(selector + ' tbody tr', trs => trs.map(tr => [...tr.children].map(td => td.textContent.trim())));
}
