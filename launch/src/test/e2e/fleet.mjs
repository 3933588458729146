// The fleet page against a real ClickHouse: the hosts, the top symbols (their first row, to be hp:fleet top's),
// and one host against the rest. Usage: node fleet.mjs ADDRESS HOST
import { run, rows, shots } from './side.mjs';

run(async (page, base, [host]) => {
  await page.goto(base + '/fleet');
  await page.waitForSelector('#top-table tbody tr');
  await page.waitForSelector('#hosts table tbody tr');
  const hosts = (await rows(page, '#hosts')).map(r => r[0]);
  const top = await rows(page, '#top-table');
  const nav = await page.$$eval('#hp-nav a', as => as.map(a => a.textContent));
  await page.screenshot({ path: shots + '/fleet.png', fullPage: true });
  await page.click(`#hosts a.versus[data-host="${host}"]`);
  await page.waitForSelector('#versus table tbody tr');
  const versus = await rows(page, '#versus');
  const title = await page.textContent('#versus-title');
  await page.screenshot({ path: shots + '/fleet-versus.png', fullPage: true });
  // A filter the page refuses: the server's message shown, nothing else broken.
  await page.goto(base + '/fleet?mode=guest');
  await page.waitForSelector('#top .hp-error');
  const refusal = await page.textContent('#top .hp-error');
  return { hosts, firstRow: top[0], rows: top.length, nav, versusTitle: title, versusRows: versus.length,
    versusFirst: versus[0], refusal };
});
