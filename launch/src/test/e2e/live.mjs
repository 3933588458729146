// The live page: it connects (server-sent events), says READY on stderr, and watches the profile the test then
// starts from the shell: the progress and the first results as they arrive, until the session ends.
// Usage: node live.mjs <address with token>
import { join } from 'node:path';
import { SHOTS, settled, verdict } from './browser.mjs';

const [address] = process.argv.slice(2);

await verdict(async page => {
  const out = {};
  await page.goto(address);
  await page.goto(new URL(address).origin + '/live');
  out.livePage = await settled(page);
  process.stderr.write('READY\n');
  const seen = [];
  let shot = false;
  for (;;) {
    const now = await page.evaluate(() => ({
      state: document.body.dataset.liveState,
      fraction: Number(document.getElementById('progress').value),
      session: document.getElementById('state').textContent,
      topRows: document.querySelectorAll('#live-top tbody tr').length,
    }));
    const last = seen[seen.length - 1];
    if (!last || last.state !== now.state || last.fraction !== now.fraction || last.topRows !== now.topRows) {
      seen.push(now);
    }
    if (now.state === 'running' && now.topRows > 0 && !shot) {
      await page.screenshot({ path: join(SHOTS, 'live-running.png') });
      shot = true;
    }
    if (now.state === 'ended') break;
    await page.waitForTimeout(100);
  }
  out.progressText = await page.locator('#progress-text').textContent();
  out.firstTopRow = await page.locator('#live-top tbody tr').first().evaluate(tr =>
    [...tr.children].map(td => td.textContent.trim()));
  await page.screenshot({ path: join(SHOTS, 'live-ended.png') });
  const running = seen.filter(s => s.state === 'running');
  out.sawRunningWithResults = running.some(s => s.topRows > 0);
  out.fractionsWhileRunning = running.map(s => s.fraction);
  out.final = seen[seen.length - 1];
  return out;
});
