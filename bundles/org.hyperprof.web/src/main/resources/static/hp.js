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

  document.addEventListener('DOMContentLoaded', nav);
  return {href, json, el, fail, pages, has, count, percent, params};
})();
