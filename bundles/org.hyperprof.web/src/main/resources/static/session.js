// The session page: /api/report (hp:report --format json's rows and books, with the store's record and
// notes) as sortable, filterable tables: the merged report of all domains, then each domain's own.
'use strict';
(() => {
  const id = hp.params.get('id');
  const view = hp.view({section: 'all', summary: 'symbol', q: '', sort: 'samples', dir: 'desc', every: false});
  const state = view.state;
  let report = null;
  let annotate = false;  // webside's annotate page is there: symbols link to it

  /** The annotate page of a row's function (its image as a literal pattern; the domain when one is shown). */
  function annotateHref(r) {
    const q = {id, symbol: r.symbol_name};
    if (r.image_name) q.image = r.image_name.replace(/[.*+?^${}()|[\]\\\/]/g, '\\$&');
    if (state.section !== 'all') q.domain = state.section;
    return hp.href('/annotate', q);
  }

  function columns(rows) {
    const truth = rows.some(r => r.true_percent !== undefined);
    const cols = [{key: 'samples', title: 'samples', num: true}, {key: 'percent', title: '%', num: true}];
    if (truth) cols.push({key: 'true_percent', title: 'true %', num: true}, {key: 'error', title: 'error', num: true});
    cols.push({key: 'domain', title: 'domain'}, {key: 'image_name', title: 'image'});
    if (state.summary === 'symbol') cols.push({key: 'symbol_name', title: 'symbol', sym: true});
    return cols;
  }

  function draw() {
    const table = document.getElementById('report');
    let re = null;
    try { re = state.q ? new RegExp(state.q, 'i') : null; } catch (e) { re = null; }
    const rows = report.rows.filter(r => r.section === state.section && r.summary === state.summary
      && (!re || re.test([r.domain, r.image_name, r.symbol_name].filter(Boolean).join(' '))));
    const cols = columns(rows);
    const col = cols.find(c => c.key === state.sort) || cols[0];
    view.sort(rows, col);
    const head = view.head(cols, draw);
    const total = rows.length;
    if (!state.every) rows.splice(100);
    const body = rows.map(r => hp.el('tr', {}, cols.map(c => {
      let v = r[c.key];
      if (c.key === 'samples') v = hp.count(v);
      else if (c.num && typeof v === 'number') v = v.toFixed(4) + (c.key === 'error' ? '' : ' %');
      else if (c.sym && annotate && v) v = hp.el('a', {class: 'hp-annotate', href: annotateHref(r)}, v);
      return hp.el('td', {class: c.num ? 'num' : (c.sym ? 'sym' : null)}, v ?? '');
    })));
    table.replaceChildren(hp.el('thead', {}, head), hp.el('tbody', {}, body));
    const st = document.getElementById('hp-status');
    st.className = '';
    st.textContent = rows.length + ' of ' + total + ' rows shown';
  }

  async function links() {
    const l = document.getElementById('links');
    annotate = await hp.has('/annotate');
    if (await hp.has('/flame')) l.append(hp.el('a', {class: 'hp-button', href: hp.href('/flame', {id})}, 'Flame graph'));
    l.append(' Download: ', ...['pprof', 'folded', 'svg'].map(f => hp.el('a', {class: 'hp-button',
      href: hp.href('/download', {id, format: f})}, f)));
  }

  async function load() {
    if (!id) { hp.fail(new Error('no session: open one from the sessions page (the address needs ?id=)')); return; }
    try {
      const body = await hp.json('/api/report', {id, top: 500});
      report = body.report;
      const s = body.stored;
      document.getElementById('title').textContent = 'Session ' + s.id + (s.name ? ' (' + s.name + ')' : '');
      document.getElementById('meta').textContent = [s.source, s.what, s.cpuType, s.status, (s.events || []).join(' '),
        hp.count(s.samples) + ' samples', (s.startedAt || '').replace('T', ' ')].filter(Boolean).join(' · ');
      const b = report.books || {};
      document.getElementById('books').textContent = body.books || ('samples taken ' + b.taken + ' = delivered '
        + b.delivered + ' + lost ' + b.lost + ' + dropped ' + b.dropped + ' + invalid ' + b.invalid);
      if (body.notes.length) {
        document.getElementById('notes-wrap').hidden = false;
        document.getElementById('notes').replaceChildren(...body.notes.map(n => hp.el('li', {}, n)));
      }
      const sections = [...new Set(report.rows.map(r => r.section))];
      const domains = new Map(report.rows.filter(r => r.section !== 'all').map(r => [r.section, r.domain]));
      const sel = document.getElementById('section');
      sel.replaceChildren(...sections.map(x => hp.el('option', {value: x},
        x === 'all' ? 'all domains' : 'domain ' + x + (domains.get(x) ? ' (' + domains.get(x) + ')' : ''))));
      if (!sections.includes(state.section)) state.section = sections[0] || 'all';
      view.bind('section', 'section', draw);
      view.bind('summary', 'summary', draw);
      view.bind('filter', 'q', draw);
      view.bind('everyRow', 'every', draw);
      await links();
      draw();
      document.body.dataset.state = 'ready';
    } catch (e) { hp.fail(e); }
  }
  document.addEventListener('DOMContentLoaded', load);
})();
