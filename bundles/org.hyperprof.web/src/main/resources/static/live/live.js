import { el, percent, table } from '/static/side/dom.js';
/* global hp */

const state = document.getElementById('state');
const bar = document.getElementById('progress');
const barText = document.getElementById('progress-text');
const top = document.getElementById('top');

function show(b) {
  document.body.dataset.liveState = b.state;
  if (b.state === 'idle') {
    state.textContent = 'Waiting for a profile: start one from the shell (hp:profile).';
  } else {
    const s = b.session;
    state.textContent = 'Session ' + s.id + ' (' + s.source + ', ' + s.host + ', ' + s.cpu + '): '
      + (b.state === 'running' ? 'running' : 'ended: ' + b.ended.reason + ', ' + b.ended.delivered + ' of '
        + b.ended.taken + ' samples delivered')
      + (s.joinedLate ? ' (this page joined mid-run: samples counted from then)' : '');
  }
  bar.value = b.state === 'ended' ? 1 : b.progress.fraction;
  barText.textContent = b.progress.totalMicros > 0
    ? (b.progress.doneMicros / 1000).toFixed(0) + ' / ' + (b.progress.totalMicros / 1000).toFixed(0) + ' ms simulated, '
      + b.samples + ' samples'
    : b.samples + ' samples';
  top.replaceChildren(b.top.length === 0 ? el('p', { class: 'hp-hint', text: 'No samples yet.' })
    : table(['samples', 'share', 'image', 'symbol'], b.top.map(r => [r.samples, percent(r.share, 2), r.image, r.symbol]), [0, 1]));
  top.querySelector('table')?.setAttribute('id', 'live-top');
  document.body.dataset.state = 'ready';
}

const events = new EventSource(hp.href('/api/live/events'));
events.addEventListener('board', ev => show(JSON.parse(ev.data)));
events.addEventListener('error', () => {
  state.textContent = 'The connection to Hyperprof was lost; it is tried again.';
});
