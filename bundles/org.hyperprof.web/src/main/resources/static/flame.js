// The flame graph page: /api/flame (the tree aggregated on the server, the SVG export's colours) drawn by
// FlameCanvas; search, zoom and icicle kept in the address, so a link opens the same view.
'use strict';
(() => {
  const id = hp.params.get('id');
  let graph = null, data = null;

  function keep(changes) {
    const q = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries(changes)) { if (v) q.set(k, v); else q.delete(k); }
    history.replaceState(null, '', location.pathname + '?' + q);
  }

  function regex(text) {
    if (!text) return null;
    try { return new RegExp(text); } catch (e) { return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')); }
  }

  function search(text) {
    const r = graph.search(regex(text));
    const m = document.getElementById('matched');
    m.textContent = r ? 'Matched: ' + hp.percent(r.total) + ' of samples (' + hp.count(r.samples) + ' in '
      + r.frames + ' frames; ' + hp.percent(r.self) + ' in the matched functions themselves)' : '';
    m.dataset.share = r ? r.total : '';
    m.dataset.self = r ? r.self : '';
    keep({q: text});
  }

  function crumbs(node) {
    const names = [];
    for (let i = node; i >= 0; i = data.tree.parent[i]) names.unshift(data.tree.name(i));
    document.getElementById('crumbs').textContent = names.join(' → ');
  }

  async function load() {
    if (!id) { hp.fail(new Error('no session: open a flame graph from the sessions page (the address needs ?id=)')); return; }
    try {
      const body = await hp.json('/api/flame', {id});
      const nodes = body.nodes, frames = body.frames;
      const tree = FlameCanvas.layout(nodes, 4, nodes.length / 4);
      tree.name = i => frames[tree.frame[i]][0];
      tree.fill = i => frames[tree.frame[i]][2];
      data = {body, tree};
      document.getElementById('title').textContent = body.title;
      document.getElementById('population').textContent = body.population;
      document.getElementById('legend').replaceChildren(...body.legend.map(([cls, fill, text]) =>
        hp.el('span', {class: 'hp-swatch'}, hp.el('canvas', {width: 12, height: 12, 'data-fill': fill}), ' ' + text)));
      for (const c of document.querySelectorAll('#legend canvas')) {
        const g = c.getContext('2d'); g.fillStyle = c.dataset.fill; g.fillRect(0, 0, 12, 12);
      }
      const tip = document.getElementById('tip');
      const all = body.total || 1;
      graph = FlameCanvas.create(document.getElementById('flame'), tree, {
        icicle: hp.params.get('icicle') === '1',
        onZoom: node => { keep({z: node ? String(node) : ''}); crumbs(node); },
        onHover: (i, e) => {
          if (i === null) { tip.style.display = 'none'; return; }
          const f = frames[tree.frame[i]], kind = body.kinds[f[1]][1];
          tip.textContent = f[0] + ' (' + kind + (f[3] ? ', ' + f[3] : '') + '): ' + hp.count(tree.total[i]) + ' samples, '
            + hp.percent(tree.total[i] / all) + (tree.self[i] && tree.self[i] !== tree.total[i]
              ? ' (' + hp.count(tree.self[i]) + ' in the function itself)' : '');
          tip.style.display = 'block';
          tip.style.left = Math.min(e.clientX + 12, window.innerWidth - 420) + 'px';
          tip.style.top = (e.clientY + 14) + 'px';
        },
      });
      const z = parseInt(hp.params.get('z') || '0', 10);
      if (z > 0 && z < tree.n) graph.setZoom(z); else crumbs(0);
      const s = document.getElementById('search');
      s.value = hp.params.get('q') || '';
      if (s.value) search(s.value);
      s.addEventListener('input', () => search(s.value));
      document.getElementById('reset').addEventListener('click', () => graph.setZoom(0));
      const ic = document.getElementById('icicle');
      ic.checked = hp.params.get('icicle') === '1';
      ic.addEventListener('change', () => { graph.setIcicle(ic.checked); keep({icicle: ic.checked ? '1' : ''}); });
      const st = document.getElementById('hp-status');
      st.className = '';
      st.textContent = hp.count(tree.n) + ' frames drawn from ' + hp.count(body.total) + ' samples'
        + (body.leftOut ? '; ' + hp.count(body.leftOut) + ' frames under 0.005 % left out' : '');
      document.getElementById('downloads').replaceChildren('Download: ',
        ...['pprof', 'folded', 'svg'].map(f => hp.el('a', {class: 'hp-button', href: hp.href('/download', {id, format: f})}, f)));
      document.body.dataset.state = 'ready';
    } catch (e) { hp.fail(e); }
  }
  document.addEventListener('DOMContentLoaded', load);
})();
