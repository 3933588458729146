import { el, getJson, percent, showError, params, withParams, fill } from '/static/side/dom.js';

const FIELDS = ['id', 'symbol', 'image', 'domain', 'source'];

/** A bar of that many pixels; its width set through the CSSOM, which the page's CSP allows (a style attribute it would not). */
function bar(px) {
  const b = el('span', { class: 'hp-bar' });
  b.style.width = px.toFixed(1) + 'px';
  return b;
}

async function show() {
  delete document.body.dataset.state;
  const where = document.getElementById('annotation');
  const p = params();
  if (!p.get('symbol')) {
    document.body.dataset.state = 'ready';
    where.replaceChildren(el('p', { class: 'hp-hint', text: 'Name a function of a session whose code is on this machine (a perf.data import, or the real-elf-userland scenario): /annotate?id=ID&symbol=NAME.' }));
    return;
  }
  const q = new URLSearchParams();
  for (const f of FIELDS) if (p.get(f)) q.set(f, p.get(f));
  try {
    const a = await getJson('/api/annotate', q);
    document.getElementById('title').textContent = a.symbol + ' in ' + a.image;
    const max = Math.max(1, ...a.lines.filter(l => l.address).map(l => l.samples));
    const body = a.lines.map(l => l.address
      ? el('tr', {}, el('td', { class: 'num', text: l.samples }), el('td', { class: 'num', text: percent(l.share, 2) }),
        el('td', {}, bar(60 * l.samples / max)),
        el('td', { class: 'hp-code', text: l.address }), el('td', { class: 'hp-code', text: l.instruction }))
      : el('tr', { class: 'hp-source' }, el('td'), el('td'), el('td'), el('td', { colspan: 2, class: 'hp-code', text: l.source })));
    fill(where,
      el('p', { text: 'Session ' + a.session + ', event ' + a.event + ': ' + a.samples + ' samples on its instructions ('
        + percent(a.sessionSamples ? a.samples / a.sessionSamples : 0, 2) + ' of the session\'s ' + a.sessionSamples
        + '), ' + a.start + '–' + a.end + (a.outside ? '; ' + a.outside + ' could not be placed' : '') }),
      el('table', { class: 'hp-table', id: 'annotate-table' },
        el('thead', {}, el('tr', {}, el('th', { class: 'num', text: 'samples' }), el('th', { class: 'num', text: 'share' }),
          el('th'), el('th', { text: 'address' }), el('th', { text: 'instruction' }))),
        el('tbody', {}, ...body)),
      a.linesLeftOut ? el('p', { class: 'hp-hint', text: a.linesLeftOut + ' more lines left out' }) : null,
      ...a.notes.map(n => el('p', { class: 'hp-hint', text: 'Note: ' + n })));
    document.body.dataset.state = 'ready';
  } catch (e) {
    showError(where, e);
  }
}

const form = document.getElementById('ask');
for (const f of FIELDS) {
  const v = params().get(f);
  if (v && form.elements[f]) {
    if (form.elements[f].type === 'checkbox') form.elements[f].checked = v === '1'; else form.elements[f].value = v;
  }
}
form.addEventListener('submit', ev => {
  ev.preventDefault();
  const values = {};
  for (const f of FIELDS) {
    const e = form.elements[f];
    values[f] = e.type === 'checkbox' ? (e.checked ? '1' : '') : e.value.trim();
  }
  history.pushState(null, '', withParams(values));
  show();
});
window.addEventListener('popstate', show);
show();
