// The study page: the last study's chart (the SVG hp:study writes) and table, intervals included.
// Usage: node study.mjs <address with token>
import { join } from 'node:path';
import { SHOTS, settled, verdict } from './browser.mjs';

const [address] = process.argv.slice(2);

await verdict(async page => {
  const out = {};
  await page.goto(address);
  await page.goto(new URL(address).origin + '/study');
  out.studyPage = await settled(page);
  await page.waitForFunction(() => {
    const img = document.getElementById('study-chart');
    return img && img.complete && img.naturalWidth > 0;
  });
  out.chartWidth = await page.locator('#study-chart').evaluate(img => img.naturalWidth);
  out.headings = await page.locator('#study-table thead th').allTextContents();
  out.rows = await page.locator('#study-table tbody tr').evaluateAll(trs =>
    trs.map(tr => [...tr.children].map(td => td.textContent.trim())));
  await page.screenshot({ path: join(SHOTS, 'study.png'), fullPage: true });
  return out;
});
