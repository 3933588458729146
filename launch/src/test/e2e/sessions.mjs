// The walk of issue 21: the sessions page, one session's report, its flame graph searched for a symbol,
// and the diff of two sessions. Usage: node sessions.mjs <address with token> <symbol> <session A> <session B>
import { join } from 'node:path';
import { SHOTS, settled, verdict } from './browser.mjs';

const [address, symbol, a, b] = process.argv.slice(2);
const origin = new URL(address).origin;

await verdict(async page => {
  const out = {};
  await page.goto(address);
  out.sessionsPage = await settled(page);
  out.sessionRows = await page.locator('#sessions tbody tr').count();
  out.nav = await page.locator('#hp-nav a').allTextContents();
  await page.screenshot({ path: join(SHOTS, 'sessions.png'), fullPage: true });

  // Open session A by its link in the table.
  await page.locator(`#sessions tbody tr[data-id="${a}"] a`).first().click();
  await page.waitForURL(/\/session\?/);
  out.sessionPage = await settled(page);
  out.reportRows = await page.locator('#report tbody tr').count();
  out.books = await page.locator('#books').textContent();
  await page.screenshot({ path: join(SHOTS, 'session.png'), fullPage: true });

  // Its flame graph, searched for the symbol.
  await page.locator('#links a', { hasText: 'Flame graph' }).click();
  await page.waitForURL(/\/flame\?/);
  out.flamePage = await settled(page);
  await page.locator('#search').fill(symbol);
  await page.waitForFunction(() => document.getElementById('matched').dataset.share !== '');
  out.flameShare = Number(await page.locator('#matched').getAttribute('data-share'));
  out.flameSelf = Number(await page.locator('#matched').getAttribute('data-self'));
  out.flameUrl = page.url();
  await page.screenshot({ path: join(SHOTS, 'flame.png'), fullPage: true });
  // Click the first domain's frame (one row above the bottom one): the graph zooms to it, the address keeps it.
  const box = await page.locator('#flame').boundingBox();
  await page.locator('#flame').click({ position: { x: 5, y: box.height - 2 - 18 - 9 } });
  await page.waitForURL(/[?&]z=\d+/);
  out.zoomCrumbs = await page.locator('#crumbs').textContent();
  await page.reload();
  out.zoomKept = (await settled(page)).state === 'ready' && (await page.locator('#crumbs').textContent()) === out.zoomCrumbs
    && (await page.locator('#search').inputValue()) === symbol;

  // Back on the sessions page: pick A then B and open their diff.
  await page.goto(origin + '/');
  await settled(page);
  await page.locator(`#sessions tbody tr[data-id="${a}"] input[type=checkbox]`).check();
  await page.locator(`#sessions tbody tr[data-id="${b}"] input[type=checkbox]`).check();
  await page.locator('#diff').click();
  await page.waitForURL(/\/diff\?/);
  out.diffPage = await settled(page);
  out.diffRows = await page.locator('#diff tbody tr').evaluateAll(rows => rows.map(r => ({
    domain: r.dataset.domain, image: r.dataset.image, symbol: r.dataset.symbol,
    delta: Number(r.querySelector('td.delta').dataset.delta), mark: r.children[2].textContent })));
  await page.screenshot({ path: join(SHOTS, 'diff.png'), fullPage: true });
  return out;
});
