// What the fleet, study, live and annotate pages share: building elements from text (never HTML), asking the
// server for JSON (its clear 400 message shown as it is), numbers written as the shell writes them.

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** GETs JSON; a refusal becomes an Error carrying the server's message. */
export async function getJson(path) {
  const r = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  const text = await r.text();
  let body;
  try { body = JSON.parse(text); } catch (e) { body = null; }
  if (!r.ok) {
    const why = body && (body.error || body.message) ? (body.error || body.message) : text || r.statusText;
    throw new Error(why);
  }
  return body;
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
}

/** The page's query parameters (deep links keep the page's state in the address). */
export function params() {
  return new URLSearchParams(location.search);
}

/** The address with these parameters, keeping the rest (the token never: the cookie carries it). */
export function withParams(values) {
  const p = params();
  p.delete('token');
  for (const [k, v] of Object.entries(values)) {
    if (v === null || v === undefined || v === '') p.delete(k); else p.set(k, v);
  }
  const q = p.toString();
  return location.pathname + (q ? '?' + q : '');
}
