// The study page: the last study's chart (the SVG hp:study writes) and table, intervals included.
// Usage: node study.mjs ADDRESS
import { run, rows, shots } from './side.mjs';

run(async (page, base) => {
  await page.goto(base + '/study');
  await page.waitForSelector('#study-table tbody tr');
  await page.waitForFunction(() => {
    const img = document.getElementById('study-chart');
    return img && img.complete && img.naturalWidth > 0;
  });
  const chartWidth = await page.$eval('#study-chart', img => img.naturalWidth);
  const table = await rows(page, '#study-table');
  const headings = await page.$$eval('#study-table thead th', ths => ths.map(th => th.textContent));
  await page.screenshot({ path: shots + '/study.png', fullPage: true });
  return { chartWidth, headings, rows: table };
});
