// The annotate page: a function of a session whose code is on this machine, instruction by instruction; and a
// function without code, refused with the reason. Usage: node annotate.mjs ADDRESS SESSION SYMBOL NO_CODE_SYMBOL
import { run, rows, shots } from './side.mjs';

run(async (page, base, [session, symbol, noCode]) => {
  await page.goto(base + '/annotate?id=' + session + '&symbol=' + encodeURIComponent(symbol));
  await page.waitForSelector('#annotate-table tbody tr');
  const lines = await rows(page, '#annotate-table');
  const instructions = lines.filter(l => l[0] !== '');
  const samples = instructions.reduce((s, l) => s + Number(l[0]), 0);
  const title = await page.textContent('#title');
  await page.screenshot({ path: shots + '/annotate.png', fullPage: false });
  await page.goto(base + '/annotate?id=' + session + '&symbol=' + encodeURIComponent(noCode));
  await page.waitForSelector('#annotation .hp-error');
  const refusal = await page.textContent('#annotation .hp-error');
  return { title, instructions: instructions.length, samples, hottest: [...instructions].sort((a, b) => b[0] - a[0])[0],
    refusal };
});
