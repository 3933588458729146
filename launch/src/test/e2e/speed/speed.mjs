// The flame graph's speed harness (run by hand, not in CI): opens a stored session's flame graph five
// times, each in a fresh page, and prints the milliseconds from navigation start to the first frame
// with the graph painted (performance.now() when the page marks itself ready), and their median.
// The first opening finds the session's graph not cached (drawn from the store's summed stacks, or
// replayed when the store cannot sum them); it is printed apart ("cold") and not counted in the five.
// For a cold figure run it once per restart of the process, or once per session not opened before.
// As a user does, it first opens the address hp:serve printed (the session list) in the same browser, so
// the view's shared script and style are loaded as they would be; --straight opens the flame graph first,
// in a browser that has loaded nothing of the view.
//   node speed/speed.mjs '<address hp:serve printed>' <session id> [--straight]
import { settled, open } from '../browser.mjs';

const [address, id, how] = process.argv.slice(2);
const url = new URL(address);
const flame = `${url.origin}/flame?id=${id}&token=${url.searchParams.get('token')}`;
const b = await open();
try {
  if (how !== '--straight') {
    const list = await b.context.newPage();
    await list.goto(address);
    const s = await settled(list);
    if (s.state !== 'ready') throw new Error('the session list failed: ' + s.status);
    await list.close();
  }
  const times = [];
  for (let i = 0; i < 6; i++) {
    const page = await b.context.newPage();
    await page.goto(flame);
    const s = await settled(page);
    if (s.state !== 'ready') throw new Error('the flame graph failed: ' + s.status);
    const ms = Number(await page.evaluate(() => document.body.dataset.paintedMs));
    const frames = await page.evaluate(() => document.getElementById('hp-status').textContent);
    if (i === 0) console.log(`cold (not cached): ${ms} ms; ${frames}`);
    else times.push(ms);
    await page.close();
  }
  const sorted = [...times].sort((x, y) => x - y);
  console.log(`five openings: ${times.join(', ')} ms; median ${sorted[2]} ms`);
} finally {
  await b.close();
}
