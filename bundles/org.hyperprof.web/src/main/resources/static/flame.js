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

  // The sandwich of a function: every frame of that name (a recursive call counted once, at its
  // outermost frame), its callers merged into one tree and its callees into another.
  function sandwich(node) {
    const view = document.getElementById('sandwich-view');
    const t = data && data.tree;
    if (!t || !document.getElementById('sandwich').checked || node <= 0) { view.hidden = true; return; }
    const name = t.name(node);
    const fills = new Map();
    const make = n => ({name: n, total: 0, self: 0, children: new Map()});
    const child = (p, n) => { let c = p.children.get(n); if (!c) { c = make(n); p.children.set(n, c); } return c; };
    const callers = make(name), callees = make(name);
    const under = (src, dst) => {
      for (let c = src + 1; c < t.n && t.depth[c] > t.depth[src]; c++) {
        if (t.parent[c] !== src) continue;
        const d = child(dst, t.name(c)); fills.set(t.name(c), t.fill(c));
        d.total += t.total[c]; d.self += t.self[c]; under(c, d);
      }
    };
    for (let i = 0; i < t.n; i++) {
      if (t.name(i) !== name) continue;
      let outer = true;
      for (let p = t.parent[i]; p >= 0; p = t.parent[p]) if (t.name(p) === name) { outer = false; break; }
      if (!outer) continue;
      fills.set(name, t.fill(i));
      callees.total += t.total[i]; callees.self += t.self[i]; under(i, callees);
      callers.total += t.total[i];
      let at = callers;
      for (let p = t.parent[i]; p >= 0; p = t.parent[p]) {
        at = child(at, t.name(p)); fills.set(t.name(p), t.fill(p)); at.total += t.total[i];
      }
    }
    const draw = (root, old, icicle) => {
      const canvas = old.cloneNode(false);  // a fresh canvas: the last sandwich's listeners stay with the old one
      old.replaceWith(canvas);
      const nodes = [], names = [];
      const walk = x => {
        const kids = [...x.children.values()].sort((a, b) => a.name.localeCompare(b.name));
        names.push(x.name); nodes.push(names.length - 1, x.total, x.self, kids.length);
        kids.forEach(walk);
      };
      walk(root);
      const tree = FlameCanvas.layout(nodes, 4, nodes.length / 4);
      tree.name = i => names[tree.frame[i]];
      tree.fill = i => fills.get(names[tree.frame[i]]) || '#ccc';
      FlameCanvas.create(canvas, tree, {icicle});
    };
    view.hidden = false;
    document.getElementById('sandwich-title').textContent = 'Sandwich of ' + name + ': '
      + hp.count(callees.total) + ' samples (' + hp.percent(callees.total / (t.total[0] || 1)) + ')';
    draw(callers, document.getElementById('callers'), false);
    draw(callees, document.getElementById('callees'), true);
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
        onZoom: node => { keep({z: node ? String(node) : ''}); crumbs(node); sandwich(node); },
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
      const sw = document.getElementById('sandwich');
      sw.checked = hp.params.get('sandwich') === '1';
      sw.addEventListener('change', () => { keep({sandwich: sw.checked ? '1' : ''}); sandwich(graph.zoom()); });
      sandwich(graph.zoom());
      const ic = document.getElementById('icicle');
      ic.checked = hp.params.get('icicle') === '1';
      ic.addEventListener('change', () => { graph.setIcicle(ic.checked); keep({icicle: ic.checked ? '1' : ''}); });
      const st = document.getElementById('hp-status');
      st.className = '';
      st.textContent = hp.count(tree.n) + ' frames drawn from ' + hp.count(body.total) + ' samples'
        + (body.leftOut ? '; ' + hp.count(body.leftOut) + ' frames under 0.005 % left out' : '');
      document.getElementById('downloads').replaceChildren('Download: ',
        ...['pprof', 'folded', 'svg'].map(f => hp.el('a', {class: 'hp-button', href: hp.href('/download', {id, format: f})}, f)));
      // Ready once the first frame with the graph is on screen: the speed harness reads paintedMs
      // (milliseconds from navigation start, performance.now()'s origin).
      requestAnimationFrame(() => {
        document.body.dataset.paintedMs = String(Math.round(performance.now()));
        document.body.dataset.state = 'ready';
      });
    } catch (e) { hp.fail(e); }
  }
  document.addEventListener('DOMContentLoaded', load);
})();
