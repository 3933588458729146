// A flame graph on a canvas, for profiles too large for one SVG element per frame: the tree comes as flat
// pre-order arrays, frames are laid out once, and each paint draws only the frames at least half a pixel
// wide. Click zooms to a frame (its ancestors stay, full width), search highlights matching frames and
// says their share, hover shows a frame's details. Used by the flame graph page and the diff page.
'use strict';
const FlameCanvas = (() => {
  const ROW = 18;

  /**
   * @param canvas the canvas
   * @param tree {n, frame[], total[], self[], parent[], depth[], x[], maxDepth, name(i), fill(i), details(i)}
   * @param options {icicle, onZoom(node), onHover(node|null, event)}
   */
  function create(canvas, tree, options) {
    const ctx = canvas.getContext('2d');
    let zoom = 0;           // the node whose width fills the canvas
    let matched = null;     // Uint8Array of matched nodes, or null
    let icicle = !!options.icicle;
    let width = 0, height = 0, ratio = 1;

    function resize() {
      ratio = window.devicePixelRatio || 1;
      width = canvas.clientWidth || canvas.parentElement.clientWidth || 1200;
      height = (tree.maxDepth + 1) * ROW + 4;
      canvas.style.height = height + 'px';
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    }

    function isAncestor(a, b) { // a is b or above it
      for (let i = b; i >= 0; i = tree.parent[i]) if (i === a) return true;
      return false;
    }

    function rowY(depth) { return icicle ? depth * ROW + 2 : height - (depth + 1) * ROW - 2; }

    function paint() {
      ctx.clearRect(0, 0, width, height);
      ctx.font = '12px ui-monospace, "DejaVu Sans Mono", monospace';
      ctx.textBaseline = 'middle';
      const x0 = tree.x[zoom], span = tree.total[zoom] || 1, scale = width / span;
      const zoomDepth = tree.depth[zoom];
      for (let i = 0; i < tree.n; i++) {
        let x, w;
        if (tree.depth[i] < zoomDepth || (tree.depth[i] === zoomDepth && i !== zoom)) {
          if (!isAncestor(i, zoom)) continue;
          x = 0; w = width;                       // an ancestor of the zoomed frame: full width
        } else {
          const left = tree.x[i] - x0;
          if (left < 0 || left >= span) continue;
          w = tree.total[i] * scale;
          if (w < 0.5) continue;
          x = left * scale;
        }
        const y = rowY(tree.depth[i]);
        const dim = matched && !matched[i];
        ctx.fillStyle = matched && matched[i] ? '#e040c8' : tree.fill(i);
        ctx.globalAlpha = dim ? 0.45 : 1;
        ctx.fillRect(x + 0.5, y, Math.max(w - 1, 0.5), ROW - 2);
        if (w > 28) {
          const label = fit(tree.name(i), w - 6);
          if (label) { ctx.fillStyle = '#111'; ctx.fillText(label, x + 3, y + ROW / 2 - 1); }
        }
      }
      ctx.globalAlpha = 1;
    }

    const widths = new Map();
    function fit(text, room) {
      const per = widths.get('m') || (widths.set('m', ctx.measureText('mmmmmmmmmm').width / 10), widths.get('m'));
      const chars = Math.floor(room / per);
      if (chars < 3) return '';
      return text.length <= chars ? text : text.slice(0, chars - 2) + '..';
    }

    function nodeAt(px, py) {
      const depth = icicle ? Math.floor((py - 2) / ROW) : Math.floor((height - 2 - py) / ROW);
      if (depth < 0 || depth > tree.maxDepth) return -1;
      const x0 = tree.x[zoom], span = tree.total[zoom] || 1;
      const at = x0 + px / width * span;
      const zoomDepth = tree.depth[zoom];
      if (depth <= zoomDepth) {
        for (let i = zoom; i >= 0; i = tree.parent[i]) if (tree.depth[i] === depth) return i;
        return -1;
      }
      for (let i = zoom; i < tree.n; i++) {
        if (tree.depth[i] === depth && tree.x[i] <= at && at < tree.x[i] + tree.total[i] && isAncestor(zoom, i)) return i;
        if (i > zoom && tree.depth[i] <= zoomDepth) break;
      }
      return -1;
    }

    canvas.addEventListener('click', e => {
      const r = canvas.getBoundingClientRect();
      const i = nodeAt(e.clientX - r.left, e.clientY - r.top);
      if (i >= 0) setZoom(i);
    });
    canvas.addEventListener('mousemove', e => {
      const r = canvas.getBoundingClientRect();
      const i = nodeAt(e.clientX - r.left, e.clientY - r.top);
      if (options.onHover) options.onHover(i >= 0 ? i : null, e);
    });
    canvas.addEventListener('mouseleave', e => options.onHover && options.onHover(null, e));
    window.addEventListener('resize', () => { resize(); paint(); });

    function setZoom(i) {
      zoom = i >= 0 && i < tree.n ? i : 0;
      paint();
      if (options.onZoom) options.onZoom(zoom);
    }

    /** Highlights frames whose name matches; returns {total, self}: shares of all samples (nested matches once). */
    function search(regex) {
      if (!regex) { matched = null; paint(); return null; }
      matched = new Uint8Array(tree.n);
      let total = 0, self = 0, count = 0;
      for (let i = 0; i < tree.n; i++) {
        if (regex.test(tree.name(i))) {
          matched[i] = 1; count++;
          self += tree.self[i];
          let nested = false;
          for (let p = tree.parent[i]; p >= 0; p = tree.parent[p]) if (matched[p]) { nested = true; break; }
          if (!nested) total += tree.total[i];
        }
      }
      paint();
      const all = tree.total[0] || 1;
      return {total: total / all, self: self / all, frames: count, samples: total};
    }

    function setIcicle(on) { icicle = on; paint(); }

    resize();
    paint();
    return {paint, setZoom, search, setIcicle, zoom: () => zoom};
  }

  /** Lays out pre-order nodes given as (frame, total, self, childCount) groups of `stride` numbers. */
  function layout(nodes, stride, count, totalAt, selfAt) {
    totalAt = totalAt || 1; selfAt = selfAt || 2;
    const n = count;
    const frame = new Int32Array(n), total = new Float64Array(n), self = new Float64Array(n);
    const parent = new Int32Array(n), depth = new Int32Array(n), x = new Float64Array(n);
    const childIndex = stride - 1;
    const stackNode = [], stackLeft = [], stackNext = [];
    let maxDepth = 0;
    for (let i = 0; i < n; i++) {
      const o = i * stride;
      frame[i] = nodes[o]; total[i] = nodes[o + totalAt]; self[i] = nodes[o + selfAt];
      while (stackNode.length && stackLeft[stackLeft.length - 1] === 0) { stackNode.pop(); stackLeft.pop(); stackNext.pop(); }
      if (stackNode.length) {
        const top = stackNode.length - 1;
        parent[i] = stackNode[top]; depth[i] = depth[stackNode[top]] + 1;
        x[i] = stackNext[top]; stackNext[top] += total[i]; stackLeft[top]--;
      } else { parent[i] = -1; depth[i] = 0; x[i] = 0; }
      if (depth[i] > maxDepth) maxDepth = depth[i];
      const children = nodes[o + childIndex];
      if (children > 0) {
        // A parent's own samples are drawn as the room right of its children (flamegraph.pl leaves it empty).
        stackNode.push(i); stackLeft.push(children); stackNext.push(x[i]);
      }
    }
    return {n, frame, total, self, parent, depth, x, maxDepth};
  }

  return {create, layout, ROW};
})();
