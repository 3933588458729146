import { el, getJson, percent, table, showError, params, withParams, fill } from '/static/side/dom.js';

const FILTERS = ['what', 'hosts', 'pattern', 'since', 'until', 'mode', 'event', 'limit'];

function filterQuery() {
  const p = params();
  const q = new URLSearchParams();
  for (const f of FILTERS) if (p.get(f)) q.set(f, p.get(f));
  return q;
}

async function showHosts() {
  const where = document.getElementById('hosts');
  try {
    const { hosts } = await getJson('/api/fleet/hosts');
    if (hosts.length === 0) {
      where.replaceChildren(el('p', { class: 'hp-hint', text: 'No host has shipped a session yet (hp:fleet status says why).' }));
      return;
    }
    where.replaceChildren(table(['host', 'last session', 'sessions', 'samples', 'CPU', 'hypervisor', 'kernel', 'Hyperprof', ''],
      hosts.map(h => [h.host, h.lastSession, h.sessions, h.samples, h.cpu, h.hypervisor, h.kernel, h.hyperprof,
        el('a', { href: withParams({ versus: h.host }), class: 'versus', 'data-host': h.host, text: 'against the rest' })]),
      [2, 3]));
  } catch (e) {
    showError(where, e);
  }
}

async function showTop() {
  const where = document.getElementById('top');
  try {
    const top = await getJson('/api/fleet/top', filterQuery());
    const symbols = top.what === 'symbols';
    const head = ['samples', 'share', 'weight', 'hosts', 'image'].concat(symbols ? ['symbol'] : []);
    where.replaceChildren(top.rows.length === 0
      ? el('p', { class: 'hp-hint', text: 'No committed samples match these filters.' })
      : table(head, top.rows.map(r => [r.samples, percent(r.share), r.weight, r.hosts, r.image].concat(symbols ? [r.symbol] : [])),
        [0, 1, 2, 3]));
    where.querySelector('table')?.setAttribute('id', 'top-table');
  } catch (e) {
    showError(where, e);
  }
}

async function showVersus() {
  const host = params().get('versus');
  const where = document.getElementById('versus');
  if (!host) return;
  document.getElementById('versus-title').textContent = host + ' against the rest';
  const q = filterQuery();
  q.delete('hosts');
  q.delete('pattern');
  q.set('host', host);
  try {
    const d = await getJson('/api/fleet/versus', q);
    const symbols = d.what === 'symbols';
    const head = ['rest', 'delta', '', host, 'samples (rest)', 'samples (' + host + ')', 'image'].concat(symbols ? ['symbol'] : []);
    const rows = d.rows.map(r => [percent(r.shareRest), el('span', { class: r.deltaPoints >= 0 ? 'hp-up' : 'hp-down',
      text: (r.deltaPoints >= 0 ? '+' : '') + r.deltaPoints.toFixed(4) + '%' }), el('span', { class: 'hp-mark', text: r.marked ? '*' : '' }),
      percent(r.shareHost), r.samplesRest, r.samplesHost, r.image].concat(symbols ? [r.symbol] : []));
    fill(where, el('p', { text: host + ': ' + d.samplesHost + ' samples; the rest (' + d.rest.join(', ') + '): '
      + d.samplesRest + ' samples. Shares are of each side\'s samples; largest change first.' }),
      table(head, rows, [0, 1, 3, 4, 5]), d.more > 0 ? el('p', { class: 'hp-hint', text: d.more + ' more rows past the limit' }) : null);
  } catch (e) {
    showError(where, e);
  }
}

function fillForm() {
  const form = document.getElementById('filters');
  const p = params();
  for (const f of FILTERS) if (p.get(f) && form.elements[f]) form.elements[f].value = p.get(f);
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const values = {};
    for (const f of FILTERS) values[f] = form.elements[f].value.trim();
    if (values.limit === '30') values.limit = '';
    if (values.what === 'symbols') values.what = '';
    history.pushState(null, '', withParams(values));
    draw(showTop, showVersus);
  });
}

/** Draws the page's parts; says ready when all are drawn (the browser tests wait for it). */
async function draw(...parts) {
  delete document.body.dataset.state;
  await Promise.all(parts.map(p => p()));
  if (document.body.dataset.state !== 'error') document.body.dataset.state = 'ready';
}

window.addEventListener('popstate', () => draw(showTop, showVersus));
fillForm();
draw(showHosts, showTop, showVersus);
