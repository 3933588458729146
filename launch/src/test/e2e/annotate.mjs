// The annotate page: a function of a session whose code is on this machine, instruction by instruction; and a
// function without code, refused with the reason.
// Usage: node annotate.mjs <address with token> <session> <symbol> <symbol without code>
import { join } from 'node:path';
import { SHOTS, settled, verdict } from './browser.mjs';

const [address, session, symbol, noCode] = process.argv.slice(2);
const origin = new URL(address).origin;

await verdict(async page => {
  const out = {};
  await page.goto(address);
  await page.goto(origin + '/annotate?id=' + session + '&symbol=' + encodeURIComponent(symbol));
  out.annotatePage = await settled(page);
  out.title = await page.locator('#title').textContent();
  const lines = await page.locator('#annotate-table tbody tr').evaluateAll(trs =>
    trs.map(tr => [...tr.children].map(td => td.textContent.trim())));
  const instructions = lines.filter(l => l[0] !== '');
  out.instructions = instructions.length;
  out.samples = instructions.reduce((s, l) => s + Number(l[0]), 0);
  out.hottest = [...instructions].sort((a, b) => b[0] - a[0])[0];
  await page.screenshot({ path: join(SHOTS, 'annotate.png') });

  await page.goto(origin + '/annotate?id=' + session + '&symbol=' + encodeURIComponent(noCode));
  await settled(page);
  out.refusal = await page.locator('#annotation .hp-error').textContent();
  return out;
});
