// What the fleet, study, live and annotate pages share beyond hp.js (its el, json, fail and the token it
// carries): tables, shares written as the shell writes them, and deep links that keep a page's state.
/* global hp */

export const el = (...args) => hp.el(...args);

/** GETs JSON from path with the parameters (an object or URLSearchParams); the server's message on refusal. */
export function getJson(path, query) {
  return hp.json(path, query ? Object.fromEntries(new URLSearchParams(query)) : undefined);
}

/** A share 0..1 as hp:fleet prints it: 12.3456%. */
export function percent(share, places = 4) {
  return share === null || share === undefined ? 'n/a' : (100 * share).toFixed(places) + '%';
}

/** A table from headings and rows of cells (text or elements); numeric columns right-aligned. */
export function table(headings, rows, numeric = []) {
  const head = el('tr', {}, ...headings.map((h, i) => el('th', { class: numeric.includes(i) ? 'num' : null }, h)));
  const body = rows.map(r => el('tr', {}, ...r.map((c, i) => el('td', { class: numeric.includes(i) ? 'num' : null }, c))));
  return el('table', { class: 'hp-table' }, el('thead', {}, head), el('tbody', {}, ...body));
}

export function showError(where, error) {
  where.replaceChildren(el('p', { class: 'hp-error', role: 'alert', text: error.message || String(error) }));
  document.body.dataset.state = 'error';
}

/** The page's query parameters (deep links keep the page's state in the address). */
export function params() {
  return new URLSearchParams(location.search);
}

/** This page's address with these parameters changed (empty ones dropped), the rest kept. */
export function withParams(values) {
  const p = params();
  for (const [k, v] of Object.entries(values)) {
    if (v === null || v === undefined || v === '') p.delete(k); else p.set(k, v);
  }
  const q = p.toString();
  return location.pathname + (q ? '?' + q : '');
}

/** Replaces where's children with these, leaving out the absent ones (null, undefined). */
export function fill(where, ...children) {
  where.replaceChildren(...children.filter(c => c !== null && c !== undefined));
}
