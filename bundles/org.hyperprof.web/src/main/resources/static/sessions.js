// The sessions page: the store's sessions (/api/sessions), filter and sort on the page, pick one to open
// or two to diff. The filter and sort are kept in the address.
'use strict';
(() => {
  const columns = [
    {key: '', title: '', num: false},
    {key: 'id', title: 'id', num: false},
    {key: 'name', title: 'name'},
    {key: 'source', title: 'source'},
    {key: 'what', title: 'what'},
    {key: 'status', title: 'status'},
    {key: 'samples', title: 'samples', num: true},
    {key: 'startedAt', title: 'started'},
    {key: 'labels', title: 'labels'},
  ];
  let sessions = [];
  const picked = [];
  const view = hp.view({sort: 'startedAt', dir: 'desc', q: '', all: false});
  const state = view.state;

  function text(s) {
    return [s.id, s.name, s.source, s.what, s.status, s.cpuType, ...(s.labels || [])].filter(Boolean).join(' ').toLowerCase();
  }

  function draw() {
    const table = document.getElementById('sessions');
    const q = state.q.toLowerCase();
    const rows = sessions.filter(s => !q || text(s).includes(q));
    const col = columns.find(c => c.key === state.sort) || columns[7];
    view.sort(rows, col);
    const head = view.head(columns, draw);
    const body = rows.map(s => hp.el('tr', {'data-id': s.id},
      hp.el('td', {}, hp.el('input', {type: 'checkbox', 'aria-label': 'pick session ' + s.id,
        checked: picked.includes(s.id), onchange: e => pick(s.id, e.target.checked)})),
      hp.el('td', {}, hp.el('a', {href: hp.href('/session', {id: s.id})}, s.id)),
      hp.el('td', {}, s.name || ''), hp.el('td', {}, s.source), hp.el('td', {}, s.what || ''),
      hp.el('td', {}, s.status), hp.el('td', {class: 'num'}, hp.count(s.samples)),
      hp.el('td', {}, (s.startedAt || '').replace('T', ' ').replace(/\.\d+Z$/, 'Z')),
      hp.el('td', {}, (s.labels || []).join(', '))));
    table.replaceChildren(hp.el('thead', {}, head), hp.el('tbody', {}, body));
    const status = document.getElementById('hp-status');
    status.className = '';
    status.textContent = rows.length + ' of ' + sessions.length + ' sessions' + (picked.length ? ', ' + picked.length + ' picked' : '');
    buttons();
  }

  function pick(id, on) {
    const i = picked.indexOf(id);
    if (on && i < 0) picked.push(id);
    if (!on && i >= 0) picked.splice(i, 1);
    while (picked.length > 2) picked.shift();
    draw();
  }

  async function buttons() {
    document.getElementById('open').disabled = picked.length !== 1 || !(await hp.has('/session'));
    document.getElementById('flame').disabled = picked.length !== 1 || !(await hp.has('/flame'));
    document.getElementById('diff').disabled = picked.length !== 2 || !(await hp.has('/diff'));
  }

  async function load() {
    try {
      const body = await hp.json('/api/sessions', {limit: 1000, all: state.all ? 1 : 0});
      sessions = body.sessions;
      document.body.dataset.state = 'ready';
      draw();
    } catch (e) { hp.fail(e); }
  }

  document.addEventListener('DOMContentLoaded', () => {
    view.bind('filter', 'q', draw);
    view.bind('all', 'all', load);
    document.getElementById('open').addEventListener('click', () => { location.href = hp.href('/session', {id: picked[0]}); });
    document.getElementById('flame').addEventListener('click', () => { location.href = hp.href('/flame', {id: picked[0]}); });
    document.getElementById('diff').addEventListener('click', () => { location.href = hp.href('/diff', {a: picked[0], b: picked[1]}); });
    load();
  });
})();
