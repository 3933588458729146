import { el, getJson, table, showError, fill } from '/static/side/dom.js';
/* global hp */

/** mean ± half-width, as hp:study prints it; n/a where no value could be computed. */
function figure(f, places) {
  if (!f || f.n === 0 || f.mean === null) return 'n/a';
  const m = f.mean.toFixed(places);
  return f.halfWidth === null ? m : m + ' ± ' + f.halfWidth.toFixed(places);
}

async function show() {
  const where = document.getElementById('study');
  try {
    const s = await getJson('/api/study');
    if (!s.present) {
      where.replaceChildren(el('p', { class: 'hp-hint', text: s.hint }));
      document.body.dataset.state = 'ready';
      return;
    }
    const rows = [];
    for (const v of s.variants) {
      const host = [v.label, v.ran === 0 ? 'failed' : figure(v.hypervisorPercent, 2), figure(v.policyPercent, 2),
        figure(v.accessesPerSwitch, 2), figure(v.lost, 1)];
      if (v.guests.length === 0) rows.push(host.concat(['', '', '', '', '', '', '']));
      v.guests.forEach((g, i) => {
        const lead = i === 0 ? host : ['', '', '', '', ''];
        rows.push(lead.concat([g.name, g.sources, figure(g.samples, 0), figure(g.errorA, 2) + (g.differsA ? ' *' : ''),
          figure(g.maxA, 2), figure(g.errorB, 2) + (g.differsB ? ' *' : ''), figure(g.maxB, 2)]));
      });
    }
    const title = 'Counter-virtualization policies on ' + s.scenario + ' (seed ' + (s.seed === null ? 'n/a' : s.seed)
      + (s.seeds > 1 ? ' + 0..' + (s.seeds - 1) : '') + ', ' + s.ms + ' ms simulated per run)';
    const failures = s.variants.flatMap(v => v.failures.map(f => el('li', { text: v.label + ': ' + f })));
    fill(where,
      el('p', { text: title }),
      el('img', { id: 'study-chart', src: hp.href('/api/study/chart.svg'), alt: 'the study chart: ' + title }),
      table(['variant', 'hyp %', 'policy %', 'acc/switch', 'lost', 'guest', 'profile', 'samples', 'err A', 'max A', 'err B', 'max B'],
        rows, [1, 2, 3, 4, 7, 8, 9, 10, 11]),
      el('p', { class: 'hp-hint', text: s.seeds > 1
        ? 'Every figure: mean ± half-width of the Student-t 95 % interval over the ' + s.seeds + ' seeds\' values; * differs from systemwide (paired over the seeds, Holm-corrected).'
        : 'One run per variant: no intervals (hp:study --seeds N gives them).' }),
      failures.length ? el('ul', {}, ...failures) : null);
    where.querySelector('table').setAttribute('id', 'study-table');
    document.body.dataset.state = 'ready';
  } catch (e) {
    showError(where, e);
  }
}

show();
