// The fleet page against a real ClickHouse: the hosts, the top symbols (their first row, to be hp:fleet top's),
// one host against the rest, and a filter it refuses.
// Usage: node fleet.mjs <address with token> <host> [<the page's filters, as a query: until=2026-11-28T12:00:00Z>]
import { join } from 'node:path';
import { SHOTS, settled, verdict } from './browser.mjs';

const [address, host, filters] = process.argv.slice(2);
const origin = new URL(address).origin;
const rows = (page, table) => page.locator(table + ' tbody tr').evaluateAll(trs =>
  trs.map(tr => [...tr.children].map(td => td.textContent.trim())));

await verdict(async page => {
  const out = {};
  await page.goto(address); // the token sets the cookie
  await page.goto(origin + '/fleet' + (filters ? '?' + filters : ''));
  out.fleetPage = await settled(page);
  out.nav = await page.locator('#hp-nav a').allTextContents();
  out.hosts = (await rows(page, '#hosts table')).map(r => r[0]);
  const top = await rows(page, '#top-table');
  out.topRows = top.length;
  out.firstRow = top[0];
  await page.screenshot({ path: join(SHOTS, 'fleet.png'), fullPage: true });

  await page.locator(`#hosts a.versus[data-host="${host}"]`).click();
  await page.waitForURL(/versus=/);
  out.versusPage = await settled(page);
  out.versusTitle = await page.locator('#versus-title').textContent();
  const versus = await rows(page, '#versus table');
  out.versusRows = versus.length;
  out.versusFirst = versus[0];
  await page.screenshot({ path: join(SHOTS, 'fleet-versus.png'), fullPage: true });

  await page.goto(origin + '/fleet?mode=guest');
  await settled(page);
  out.refusal = await page.locator('#top .hp-error').textContent();
  return out;
});
