// The view's shared script: the navigation (from /api/pages), JSON fetching with clear errors, and small
// helpers every page uses. No inline script anywhere (the Content-Security-Policy forbids it): pages load
// this file and their own. The access token lives in an HttpOnly cookie the server set; this script keeps
// a token found in the address on the links it draws, so an address copied from the page still opens.
'use strict';
const hp = (() => {
  const params = new URLSearchParams(location.search);
  const token = params.get('token');

  /** A same-server address with the given path and parameters (the token carried when the page had one). */
  function href(path, query) {
    const q = new URLSearchParams(query || {});
    if (token) q.set('token', token);
    const s = q.toString();
    return path + (s ? '?' + s : '');
  }

  /** GETs JSON; throws an Error with the server's message on a non-2xx answer. */
  async function json(path, query) {
    const r = await fetch(href(path, query), {credentials: 'same-origin', headers: {Accept: 'application/json'}});
    let body;
    try { body = await r.json(); } catch (e) { body = {error: r.status + ' ' + r.statusText}; }
    if (!r.ok) throw new Error(body.error || (r.status + ' ' + r.statusText));
    return body;
  }

  /** An element with attributes and children (text is always text: nothing from a profile becomes markup). */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  /** Shows an error in the page's status line. */
  function fail(error) {
    const s = document.getElementById('hp-status');
    if (s) { s.textContent = String(error.message || error); s.className = 'hp-error'; }
    document.body.dataset.state = 'error';
  }

  /** The pages present, cached per page load. */
  let pagesPromise = null;
  function pages() {
    if (!pagesPromise) pagesPromise = json('/api/pages').then(b => b.pages);
    return pagesPromise;
  }

  /** Whether a page is present (a page links to another only then). */
  async function has(path) {
    return (await pages()).some(p => p.path === path);
  }

  async function nav() {
    const n = document.getElementById('hp-nav');
    if (!n) return;
    n.replaceChildren(el('a', {class: 'hp-brand', href: href('/')}, 'Hyperprof'));
    try {
      for (const p of await pages()) {
        if (p.order < 0) continue;  // a page that needs an id (a session, two sessions) is reached from others
        const current = p.path === location.pathname;
        n.append(el('a', {href: href(p.path), class: current ? 'hp-current' : null,
          'aria-current': current ? 'page' : null}, p.title));
      }
    } catch (e) { fail(e); }
  }

  const number = new Intl.NumberFormat('en-US');
  /** 1234567 -> "1,234,567". */
  function count(n) { return number.format(n); }
  /** 0.1234 -> "12.34 %". */
  function percent(f, digits) { return (100 * f).toFixed(digits === undefined ? 2 : digits) + ' %'; }

  /**
   * A page's view (filter, sort, switches) read from the address and kept in it, so that a reload or a copied
   * address shows the same view. The defaults name each field and its type: a boolean is '1' in the address
   * or absent; a field at '' is left out.
   */
  function view(defaults) {
    const state = {};
    for (const [k, d] of Object.entries(defaults)) {
      state[k] = typeof d === 'boolean' ? params.get(k) === '1' : (params.get(k) || d);
    }

    function keep() {
      const q = new URLSearchParams(location.search);
      for (const [k, d] of Object.entries(defaults)) {
        const v = typeof d === 'boolean' ? (state[k] ? '1' : '') : state[k];
        if (v) q.set(k, v); else q.delete(k);
      }
      history.replaceState(null, '', location.pathname + '?' + q);
    }

    /** Shows a field in its control (by id); a change is written back, kept, and changed() called. */
    function bind(id, key, changed) {
      const c = document.getElementById(id);
      const box = c.type === 'checkbox';
      if (box) c.checked = state[key]; else c.value = state[key];
      c.addEventListener(box || c.tagName === 'SELECT' ? 'change' : 'input', () => {
        state[key] = box ? c.checked : c.value;
        keep();
        changed();
      });
    }

    /** Sorts rows in place by the column the view sorts by (numbers as numbers, lists joined), its way. */
    function sort(rows, col) {
      rows.sort((a, b) => {
        let x = a[col.key], y = b[col.key];
        if (Array.isArray(x)) { x = x.join(','); y = y.join(','); }
        const c = col.num ? (x ?? 0) - (y ?? 0) : String(x ?? '').localeCompare(String(y ?? ''));
        return state.dir === 'asc' ? c : -c;
      });
    }

    /** A header row whose columns sort on a click (a second click: the other way); a column without key does not. */
    function head(cols, redraw) {
      return el('tr', {}, cols.map(c => el('th', {class: c.num ? 'num' : null,
        'aria-sort': c.key && c.key === state.sort ? (state.dir === 'asc' ? 'ascending' : 'descending') : null,
        onclick: () => { if (!c.key) return; state.dir = state.sort === c.key && state.dir === 'desc' ? 'asc' : 'desc';
          state.sort = c.key; keep(); redraw(); }}, c.title)));
    }

    return {state, keep, bind, sort, head};
  }

  document.addEventListener('DOMContentLoaded', nav);
  return {href, json, el, fail, pages, has, count, percent, params, view};
})();
