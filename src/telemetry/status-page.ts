/**
 * `GET /`: one self-contained HTML page (no CDN, no files beside it) that polls `/status` every
 * second and shows each flow: state, records and rates, lag per partition, a chart of lag per
 * topic over the last minutes, outages, checkpoints, heartbeats, dead letters and transform
 * counters. Everything is drawn in the browser from the JSON; text goes in through
 * `textContent`, never as HTML, so a topic name cannot inject markup.
 */

/** How many minutes of lag the chart keeps (the page's own memory: it starts empty on load). */
export const CHART_MINUTES = 5;

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d1f21; background: #fafafa; }
h1 { font-size: 1.3em; margin: 0 0 .3em; } h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
.badge { display: inline-block; padding: .1em .6em; border-radius: .8em; font-weight: 600; color: #fff; }
.ok { background: #2e7d32; } .bad { background: #c62828; } .muted { color: #666; }
table { border-collapse: collapse; margin: .3em 0 .8em; background: #fff; }
th, td { border: 1px solid #ddd; padding: .2em .6em; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; } td.text, th.text { text-align: left; }
.alert { color: #c62828; } svg { background: #fff; border: 1px solid #ddd; }
`;

const SCRIPT = `
'use strict';
const CHART_MS = ${CHART_MINUTES} * 60 * 1000;
const COLORS = ['#1565c0', '#ef6c00', '#2e7d32', '#6a1b9a', '#c62828', '#00838f', '#5d4037', '#ad1457'];
const history = new Map(); // flow -> [{ at, records, bytes, lagByTopic: Map }]
const interval = Number(new URLSearchParams(location.search).get('interval')) || 1000;

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}
function svgEl(tag, attrs) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}
function age(iso, now) {
  if (iso === null) return 'never';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return s < 120 ? s + ' s ago' : Math.round(s / 60) + ' min ago';
}
function table(cls, headers, rows) {
  const t = el('table', { class: cls });
  t.append(el('tr', {}, ...headers.map((h, i) => el('th', i === 0 ? { class: 'text' } : {}, h))));
  for (const r of rows) t.append(r);
  return t;
}
function cell(field, value, text) {
  return el('td', text ? { 'data-field': field, class: 'text' } : { 'data-field': field }, value);
}

function remember(flow, now) {
  const list = history.get(flow.name) || [];
  const lagByTopic = new Map();
  for (const p of flow.partitions) lagByTopic.set(p.topic, (lagByTopic.get(p.topic) || 0) + p.lag);
  list.push({ at: now, records: flow.records, bytes: flow.bytes, lagByTopic });
  while (list.length > 2 && list[0].at < now - CHART_MS) list.shift();
  history.set(flow.name, list);
  return list;
}
function rates(list) {
  if (list.length < 2) return { records: null, mb: null };
  const a = list[Math.max(0, list.length - 6)], b = list[list.length - 1];
  const s = (b.at - a.at) / 1000;
  return s <= 0 ? { records: null, mb: null } : { records: (b.records - a.records) / s, mb: (b.bytes - a.bytes) / s / 1048576 };
}

function chart(list) {
  const w = 640, h = 160, pad = 30;
  const svg = svgEl('svg', { width: w, height: h, 'data-chart': 'lag', role: 'img' });
  const topics = [...new Set(list.flatMap((s) => [...s.lagByTopic.keys()]))].sort();
  const max = Math.max(1, ...list.flatMap((s) => [...s.lagByTopic.values()]));
  const t1 = list.length ? list[list.length - 1].at : 0, t0 = t1 - CHART_MS;
  const x = (at) => pad + ((at - t0) / CHART_MS) * (w - 2 * pad);
  const y = (v) => h - pad + 10 - (v / max) * (h - 2 * pad);
  svg.append(svgEl('line', { x1: pad, y1: y(0), x2: w - pad, y2: y(0), stroke: '#999' }));
  const label = (text, lx, ly) => { const t = svgEl('text', { x: lx, y: ly, 'font-size': 11, fill: '#666' }); t.textContent = text; svg.append(t); };
  label(String(max), 2, y(max) + 4); label('0', 2, y(0) + 4); label('-${CHART_MINUTES} min', pad, h - 2); label('now', w - pad - 20, h - 2);
  topics.forEach((topic, i) => {
    const points = list.filter((s) => s.lagByTopic.has(topic)).map((s) => x(s.at).toFixed(1) + ',' + y(s.lagByTopic.get(topic)).toFixed(1));
    const color = COLORS[i % COLORS.length];
    svg.append(svgEl('polyline', { points: points.join(' '), fill: 'none', stroke: color, 'stroke-width': 2, 'data-topic': topic }));
    label(topic, w - pad - 150, 14 + 13 * i);
    svg.lastChild.setAttribute('fill', color);
  });
  return svg;
}

function renderFlow(flow, now) {
  const list = remember(flow, now);
  const r = rates(list);
  const section = el('section', { 'data-flow': flow.name });
  section.append(el('h2', {}, flow.name + ' ', el('span', { class: 'badge ' + (flow.notReady.length ? 'bad' : 'ok'), 'data-field': 'state' }, flow.state)));
  for (const reason of flow.notReady) section.append(el('div', { class: 'alert', 'data-field': 'not-ready' }, 'not ready: ' + reason));
  if (flow.failure) section.append(el('div', { class: 'alert', 'data-field': 'failure' }, 'failed: ' + flow.failure));
  const cp = flow.checkpoints, hb = flow.heartbeats;
  const fmt = (v, digits) => (v === null ? '-' : v.toFixed(digits));
  section.append(
    table('summary', ['records', 'records/s', 'MB/s', 'lag', 'latency ms', 'record age ms', 'dead-lettered', 'dropped', 'source resets', 'expired', 'buffered bytes'], [
      el('tr', { 'data-row': 'summary' },
        el('td', { class: 'text', 'data-field': 'records' }, flow.records), cell('rate', fmt(r.records, 0)), cell('mbps', fmt(r.mb, 2)),
        cell('lag', flow.lag), cell('latency', flow.latencyMs === null ? '-' : flow.latencyMs), cell('record-age', flow.recordAgeMs === null ? '-' : flow.recordAgeMs),
        cell('dead-lettered', flow.recordsDeadLettered), cell('dropped', flow.recordsDropped), cell('resets', flow.sourceResets),
        cell('expired', flow.recordsExpired),
        cell('buffered', flow.buffer === null ? '-' : flow.buffer.bytes)),
    ]),
  );
  section.append(
    table('health', ['part', 'state', 'count', 'last', 'errors'], [
      el('tr', { 'data-row': 'checkpoints' }, cell('name', 'checkpoints', true), cell('state', cp.state, true),
        cell('count', cp.written + ' written, ' + cp.groups + ' groups'), cell('last', age(cp.lastPassAt, now)), cell('errors', cp.errors)),
      el('tr', { 'data-row': 'heartbeats' }, cell('name', 'heartbeats', true), cell('state', hb.state, true),
        cell('count', hb.written + ' written'), cell('last', age(hb.lastAt, now)), cell('errors', hb.errors)),
      ...(flow.verify ? [el('tr', { 'data-row': 'verify', class: flow.verify.missing + flow.verify.duplicates + flow.verify.unexpected > 0 ? 'alert' : '' },
        cell('name', 'verify', true), cell('state', flow.verify.state, true),
        cell('count', flow.verify.records + ' compared, ' + flow.verify.missing + ' missing, ' + flow.verify.duplicates + ' duplicates, ' +
          flow.verify.unexpected + ' unexpected, ' + flow.verify.skipped + ' skipped'),
        cell('last', age(flow.verify.lastPassAt, now)), cell('errors', flow.verify.errors))] : []),
    ]),
  );
  if (flow.provenance) {
    const pv = flow.provenance;
    section.append(table('provenance', ['provenance', 'loops skipped', 'duplicates skipped', 'unchecked', 'window ranges'], [
      el('tr', { 'data-row': 'provenance' }, cell('name', 'headers on', true), cell('loops', pv.loops), cell('duplicates', pv.duplicates),
        cell('unchecked', pv.unchecked), cell('window-ranges', pv.windowRanges)),
    ]));
  }
  if (flow.verify && flow.verify.lastError) section.append(el('div', { class: 'alert', 'data-field': 'verify-error' }, 'verify failing: ' + flow.verify.lastError));
  if (flow.verify && flow.verify.findings.length) {
    section.append(table('verify', ['topic', 'partition', 'remote topic', 'missing', 'duplicates', 'unexpected', 'last found in source offsets', 'at'], flow.verify.findings.map((p) =>
      el('tr', { 'data-row': 'verify-finding', 'data-partition': p.topic + '-' + p.partition, class: 'alert' }, cell('topic', p.topic, true), cell('partition', p.partition),
        cell('remote-topic', p.remoteTopic, true), cell('missing', p.missing), cell('duplicates', p.duplicates), cell('unexpected', p.unexpected),
        cell('window', p.fromOffset + '-' + (p.toOffset - 1), true), cell('at', age(p.at, now))))));
  }
  if (cp.groupSync.activeGroups.length) section.append(el('div', { class: 'muted' }, 'groups not synced because active: ' + cp.groupSync.activeGroups.join(', ')));
  const groupStates = (cp.groupStates || []).filter((g) => g.state !== 'filtered-out');
  if (groupStates.length) {
    const warn = new Set(['active-on-target', 'not-translatable', 'share-group', 'failed']);
    section.append(table('groups', ['consumer group', 'sync state', 'partitions', 'since', 'why'], groupStates.map((g) =>
      el('tr', { 'data-row': 'group', 'data-group': g.group, class: warn.has(g.state) ? 'alert' : '' }, cell('group', g.group, true), cell('sync-state', g.state, true),
        cell('partitions', g.partitions === null ? '-' : g.translated + '/' + g.partitions), cell('since', age(g.since, now)), cell('reason', g.reason, true)))));
  }
  if (cp.groupsFilteredOut) section.append(el('div', { class: 'muted', 'data-field': 'groups-filtered-out' }, cp.groupsFilteredOut + ' consumer groups left out by the groups filter'));
  if (flow.outages.length) {
    section.append(table('outages', ['cluster', 'operation', 'since', 'failures', 'last error'], flow.outages.map((o) =>
      el('tr', { 'data-row': 'outage', class: 'alert' }, cell('cluster', o.cluster, true), cell('operation', o.operation, true),
        cell('since', age(o.since, now)), cell('failures', o.failures), cell('error', o.lastError, true)))));
  }
  if (flow.replicating) {
    section.append(el('div', { class: 'muted' }, 'lag per topic, last ${CHART_MINUTES} minutes'), chart(list));
    section.append(table('partitions', ['topic', 'partition', 'next offset', 'high watermark', 'lag', 'records'], flow.partitions.map((p) =>
      el('tr', { 'data-row': 'partition', 'data-partition': p.topic + '-' + p.partition }, cell('topic', p.topic, true), cell('partition', p.partition),
        cell('next-offset', p.nextOffset), cell('high-watermark', p.highWatermark), cell('lag', p.lag), cell('records', p.records)))));
  }
  if (flow.transformCounters.length) {
    section.append(table('transforms', ['transform', 'step', 'counter', 'value'], flow.transformCounters.map((c) =>
      el('tr', { 'data-row': 'transform-counter' }, cell('transform', c.transform, true), cell('step', c.step), cell('counter', c.counter, true), cell('value', c.value)))));
  }
  return section;
}

async function poll() {
  const now = Date.now();
  const banner = document.getElementById('banner');
  try {
    const res = await fetch('status', { cache: 'no-store' });
    if (!res.ok) throw new Error('/status answered ' + res.status);
    const doc = await res.json();
    document.getElementById('pipeline').textContent = doc.pipeline;
    const ready = document.getElementById('ready');
    ready.textContent = doc.ready ? 'ready' : 'not ready';
    ready.className = 'badge ' + (doc.ready ? 'ok' : 'bad');
    document.getElementById('flows').replaceChildren(...doc.flows.map((f) => renderFlow(f, now)));
    banner.textContent = 'updated ' + new Date(now).toLocaleTimeString();
    banner.className = 'muted';
  } catch (error) {
    banner.textContent = 'cannot read /status (' + error.message + '); retrying';
    banner.className = 'alert';
  }
  setTimeout(poll, interval);
}
poll();
`;

/** The page; `pipeline` is only its first title, the script reads the rest from `/status`. */
export function statusPage(pipeline: string): string {
  const title = pipeline.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mirrorflow: ${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body>
<h1>mirrorflow <span id="pipeline">${title}</span> <span id="ready" class="badge">…</span></h1>
<div id="banner" class="muted">loading /status…</div>
<div id="flows"></div>
<script>${SCRIPT}</script>
</body></html>
`;
}
