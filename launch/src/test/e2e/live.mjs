// The live page: it connects (server-sent events), says READY on a line of its own, and then watches a profile
// the test starts from the shell: the progress and the first results as they arrive, until the session ends.
// Usage: node live.mjs ADDRESS
import { run, rows, shots } from './side.mjs';

run(async (page, base) => {
  await page.goto(base + '/live');
  await page.waitForFunction(() => document.body.dataset.liveState !== undefined);
  console.log('READY');
  const seen = [];
  let shot = false;
  for (;;) {
    const now = await page.evaluate(() => ({
      state: document.body.dataset.liveState,
      fraction: Number(document.getElementById('progress').value),
      text: document.getElementById('progress-text').textContent,
      session: document.getElementById('state').textContent,
      topRows: document.querySelectorAll('#live-top tbody tr').length,
    }));
    const last = seen[seen.length - 1];
    if (!last || last.state !== now.state || last.fraction !== now.fraction || last.topRows !== now.topRows) {
      seen.push(now);
    }
    if (now.state === 'running' && now.topRows > 0 && !shot) {
      await page.screenshot({ path: shots + '/live-running.png', fullPage: true });
      shot = true;
    }
    if (now.state === 'ended') break;
    await page.waitForTimeout(100);
  }
  const top = await rows(page, '#live-top');
  await page.screenshot({ path: shots + '/live-ended.png', fullPage: true });
  const running = seen.filter(s => s.state === 'running');
  return {
    sawRunningWithResults: running.some(s => s.topRows > 0),
    fractionsWhileRunning: running.map(s => s.fraction),
    final: seen[seen.length - 1],
    firstTopRow: top[0],
  };
});
