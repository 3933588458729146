// The diff page: /api/diff (hp:diff's rows: shares, delta in points, ratio, the noise mark) as a table,
// and /api/diff/flame as a red/blue differential flame graph.
'use strict';
(() => {
  const a = hp.params.get('a'), b = hp.params.get('b');
  const view = hp.view({summary: 'symbols', q: '', marked: false, every: false});
  const state = view.state;
  let diff = null;

  function signed(points) { return (points > 0 ? '+' : '') + points.toFixed(4) + ' %'; }

  function draw() {
    let re = null;
    try { re = state.q ? new RegExp(state.q, 'i') : null; } catch (e) { re = null; }
    const rows = diff[state.summary].filter(r => (!state.marked || r.marked)
      && (!re || re.test([r.domain, r.image, r.symbol].filter(Boolean).join(' '))));
    const total = rows.length;
    if (!state.every) rows.splice(50);
    const sym = state.summary === 'symbols';
    const head = hp.el('tr', {}, ['baseline', 'delta', 'mark', 'ratio', 'samples A', 'samples B', 'domain', 'image', sym ? 'symbol' : null]
      .filter(Boolean).map((t, i) => hp.el('th', {class: i < 6 && i !== 2 ? 'num' : null}, t)));
    const body = rows.map(r => hp.el('tr', {'data-symbol': r.symbol || '', 'data-image': r.image, 'data-domain': r.domain},
      hp.el('td', {class: 'num'}, (100 * r.shareA).toFixed(4) + ' %'),
      hp.el('td', {class: 'num delta ' + (r.marked ? (r.deltaPoints > 0 ? 'hp-up' : 'hp-down') : 'hp-noise'),
        'data-delta': r.deltaPoints}, signed(r.deltaPoints)),
      hp.el('td', {}, r.marked ? '*' : ''),
      hp.el('td', {class: 'num'}, r.ratio === null ? '' : r.ratio.toFixed(6)),
      hp.el('td', {class: 'num'}, hp.count(r.samplesA)), hp.el('td', {class: 'num'}, hp.count(r.samplesB)),
      hp.el('td', {}, r.domain), hp.el('td', {}, r.image), sym ? hp.el('td', {class: 'sym'}, r.symbol || '') : null));
    document.getElementById('diff').replaceChildren(hp.el('thead', {}, head), hp.el('tbody', {}, body));
    const st = document.getElementById('hp-status');
    st.className = '';
    st.textContent = rows.length + ' of ' + total + ' rows shown (' + diff[state.summary + 'Count']
      + ' in all; largest |delta| first)';
  }

  async function flame() {
    const body = await hp.json('/api/diff/flame', {a, b});
    const tree = FlameCanvas.layout(body.nodes, 6, body.nodes.length / 6, 1, 3);
    const totalA = new Float64Array(tree.n), selfA = new Float64Array(tree.n);
    for (let i = 0; i < tree.n; i++) { totalA[i] = body.nodes[i * 6 + 2]; selfA[i] = body.nodes[i * 6 + 4]; }
    const nA = body.totalA || 1, nB = body.totalB || 1;
    let max = 0;
    const delta = new Float64Array(tree.n);
    for (let i = 0; i < tree.n; i++) { delta[i] = tree.self[i] / nB - selfA[i] / nA; max = Math.max(max, Math.abs(delta[i])); }
    tree.name = i => body.frames[tree.frame[i]][0];
    tree.fill = i => {
      const d = max ? delta[i] / max : 0, v = Math.round(255 - 190 * Math.abs(d));
      return d > 0 ? `rgb(255,${v},${v})` : d < 0 ? `rgb(${v},${v},255)` : 'rgb(250,250,250)';
    };
    const tip = document.getElementById('tip');
    const graph = FlameCanvas.create(document.getElementById('flame'), tree, {
      onHover: (i, e) => {
        if (i === null) { tip.style.display = 'none'; return; }
        tip.textContent = tree.name(i) + ': B ' + hp.count(tree.total[i]) + ' samples (' + hp.percent(tree.total[i] / nB)
          + '), A ' + hp.count(totalA[i]) + ' (' + hp.percent(totalA[i] / nA) + '); ending here: '
          + signed(100 * delta[i]);
        tip.style.display = 'block';
        tip.style.left = Math.min(e.clientX + 12, window.innerWidth - 420) + 'px';
        tip.style.top = (e.clientY + 14) + 'px';
      },
    });
    const s = document.getElementById('search');
    s.addEventListener('input', () => {
      let r = null;
      try { r = s.value ? new RegExp(s.value) : null; } catch (e) { r = null; }
      const m = graph.search(r);
      document.getElementById('matched').textContent = m ? 'Matched: ' + hp.percent(m.total) + ' of B' : '';
    });
    document.getElementById('reset').addEventListener('click', () => graph.setZoom(0));
  }

  async function load() {
    if (!a || !b) { hp.fail(new Error('pick two sessions on the sessions page (the address needs ?a=&b=)')); return; }
    try {
      diff = await hp.json('/api/diff', {a, b, top: 1000});
      document.getElementById('title').textContent = 'Session ' + diff.b.id + ' (B) against ' + diff.a.id + ' (A, the baseline)';
      document.getElementById('meta').textContent = 'event ' + diff.event + '; A: ' + hp.count(diff.samplesA)
        + ' samples, B: ' + hp.count(diff.samplesB) + ' samples. Shares are of samples, as hp:report\'s %.';
      document.getElementById('rule').textContent = diff.rule;
      view.bind('summary', 'summary', draw);
      view.bind('filter', 'q', draw);
      view.bind('marked', 'marked', draw);
      view.bind('everyRow', 'every', draw);
      draw();
      await flame();
      document.body.dataset.state = 'ready';
    } catch (e) { hp.fail(e); }
  }
  document.addEventListener('DOMContentLoaded', load);
})();
