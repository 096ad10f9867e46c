// Tide dashboard: plain JS over meta's /api/dash endpoints (docs/dashboard.md). No build step.
'use strict';

/** A fragment's measured load (FragmentStats) in one line. */
function load(st) {
  if (!st) return '';
  const pct = (x) => Math.round(100 * (x || 0)) + '%';
  const line = `${Math.round(st.rowsInPerSecond || 0).toLocaleString()} rows/s in · busy ${pct(st.busy)} · backpressure ${pct(st.backpressure)}`;
  const withBacklog = st.backlog !== undefined && st.backlog >= 0 ? `${line} · backlog ${Number(st.backlog).toLocaleString()}` : line;
  return st.skipped !== undefined && Number(st.skipped) > 0 ? `${withBacklog} · ${Number(st.skipped).toLocaleString()} malformed skipped` : withBacklog;
}

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const state = { page: 'cluster', job: localStorage.getItem('tide.job') || '', timer: null, charts: [] };

async function api(path) {
  const r = await fetch(path, { credentials: 'same-origin' });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.status);
  return body;
}

async function post(path, body) {
  const r = await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body || {}) });
  const out = await r.json();
  if (!r.ok) throw new Error(out.error || r.status);
  return out;
}

/** Asks for confirmation showing {@code text}; resolves true on Confirm. */
function confirmDialog(title, text) {
  return new Promise((resolve) => {
    $('dialog-title').textContent = title;
    $('dialog-body').textContent = text;
    $('dialog').classList.remove('hidden');
    const done = (v) => { $('dialog').classList.add('hidden'); $('dialog-ok').onclick = null; $('dialog-cancel').onclick = null; resolve(v); };
    $('dialog-ok').onclick = () => done(true);
    $('dialog-cancel').onclick = () => done(false);
  });
}

function showError(e) {
  const el = $('page-error');
  if (el) el.textContent = e.message;
}

function fmtTime(ms) { return new Date(ms).toLocaleTimeString(); }

// ------------------------------------------------------------------ routing

function route() {
  const [page, job] = (location.hash.replace(/^#/, '') || 'cluster').split('/');
  state.page = ['cluster', 'job', 'placement', 'timeline', 'views'].includes(page) ? page : 'cluster';
  if (job) setJob(decodeURIComponent(job));
  document.querySelectorAll('header nav a').forEach((a) => a.classList.toggle('active', a.id === 'nav-' + state.page));
  clearInterval(state.timer);
  state.charts.forEach((c) => c.dispose ? c.dispose() : c.destroy());
  state.charts = [];
  $('page').innerHTML = '<div id="page-error" class="error"></div><div id="content"></div>';
  const pages = { cluster: clusterPage, job: jobPage, placement: placementPage, timeline: timelinePage, views: viewsPage };
  const refresh = pages[state.page]();
  const tick = () => refresh().then(() => { $('page-error').textContent = ''; }).catch(showError);
  tick();
  state.timer = setInterval(tick, 2000);
}

function setJob(name) {
  state.job = name;
  localStorage.setItem('tide.job', name);
  if ($('job-select').value !== name) $('job-select').value = name;
}

async function loadJobs() {
  const c = await api('/api/dash/cluster');
  const names = c.cluster.jobs.map((j) => j.name);
  const sel = $('job-select');
  if (sel.options.length !== names.length || names.some((n, i) => sel.options[i].value !== n)) {
    sel.innerHTML = names.map((n) => `<option value="${esc(n)}">${esc(n)}</option>`).join('');
  }
  if (!names.includes(state.job) && names.length) setJob(names[0]);
  sel.value = state.job;
  $('epoch').textContent = 'committed epoch ' + c.status.committedEpoch;
  return c;
}

// ------------------------------------------------------------------ cluster

function workerState(h) { return !h.alive ? 'lost' : h.draining ? 'draining' : 'active'; }

function clusterPage() {
  $('content').innerHTML = `
    <section><h2>Workers</h2><table id="workers"></table></section>
    <section><h2>Jobs</h2><table id="jobs"></table></section>
    <section><h2>Optimizer groups</h2><table id="groups"></table></section>`;
  return async () => {
    const c = await loadJobs();
    const health = new Map(c.status.workers.map((w) => [w.id, w]));
    $('workers').innerHTML = '<tr><th>id</th><th>address</th><th>slots</th><th>actors</th><th>most of one fragment</th><th>state</th><th>heartbeat age</th><th></th></tr>'
      + c.cluster.workers.map((w) => {
        const h = health.get(w.id) || { alive: false, draining: w.draining, heartbeatAgeMs: '?' };
        const st = workerState(h);
        return `<tr data-worker="${w.id}"><td>${w.id}</td><td>${esc(w.address)}</td><td>${w.slots}</td><td>${w.actors}</td>`
          + `<td>${w.mostOfOneFragment}</td><td><span class="state ${st}">${st}</span></td><td>${h.heartbeatAgeMs} ms</td>`
          + `<td>${st === 'active' ? `<button class="drain" data-id="${w.id}">Drain</button>` : ''}</td></tr>`;
      }).join('');
    document.querySelectorAll('button.drain').forEach((b) => b.onclick = async () => {
      const id = b.dataset.id;
      if (await confirmDialog('Drain worker ' + id + '?', 'Its actors migrate to the other workers in one reschedule each; then it is told to leave.')) {
        try { const r = await post(`/api/dash/workers/${id}/drain`); alert(`worker ${id} draining: ${r.actors} actors migrate off`); } catch (e) { showError(e); }
      }
    });
    $('jobs').innerHTML = '<tr><th>job</th><th>intent</th><th>vnodes</th><th>fragments</th><th>actors</th><th>state</th></tr>'
      + c.cluster.jobs.map((j) => `<tr><td><a href="#job/${encodeURIComponent(j.name)}">${esc(j.name)}</a></td><td>${esc(j.intent)}</td>`
        + `<td>${j.vnodeCount}</td><td>${j.fragments}</td><td>${j.actors}</td><td>${j.paused ? 'paused' : 'running'}${j.rescheduling ? ', rescheduling' : ''}</td></tr>`).join('');
    const groups = c.groups ? c.groups.groups : [];
    $('groups').innerHTML = '<tr><th>group</th><th>provider</th><th>instances</th><th>threads</th><th>pending tasks</th><th>executing tasks</th><th>DRA</th><th>last decision</th></tr>'
      + (groups.length ? groups.map((g) => `<tr><td>${esc(g.name)}</td><td>${esc(g.provider)}</td><td>${g.metrics.instances}</td><td>${g.metrics.threads}</td>`
        + `<td>${g.metrics.pendingTasks}</td><td>${g.metrics.executingTasks}</td><td>${g.draEnabled ? 'on' : 'off'}</td><td class="muted">${esc(g.lastDecision)}</td></tr>`).join('')
        : '<tr><td colspan="8" class="muted">no optimizer groups</td></tr>');
  };
}

// ------------------------------------------------------------------ job

const KNOWN_FRAGMENT_FIELDS = new Set(['fragmentId', 'kind', 'unitCount', 'ensembleRoot', 'ensemble', 'upstream', 'actors']);

function fragmentGraph(job) {
  const frags = job.fragments.fragments;
  const depth = new Map();
  const d = (f) => {
    if (depth.has(f.fragmentId)) return depth.get(f.fragmentId);
    depth.set(f.fragmentId, 0);
    const v = f.upstream.length ? 1 + Math.max(...f.upstream.map((u) => d(frags.find((x) => x.fragmentId === u)))) : 0;
    depth.set(f.fragmentId, v);
    return v;
  };
  frags.forEach(d);
  const perDepth = new Map();
  const nodes = frags.map((f) => {
    const x = depth.get(f.fragmentId);
    const y = perDepth.get(x) || 0;
    perDepth.set(x, y + 1);
    return { id: String(f.fragmentId), name: `F${f.fragmentId}`, value: [x, y], symbolSize: [190, 56], symbol: 'roundRect',
      label: { formatter: `F${f.fragmentId} ${f.kind.toLowerCase()} ×${f.actors.length}\n${job.operators[f.fragmentId] || ''}` } };
  });
  const links = job.edges.map((e) => ({ source: String(e.upstreamFragmentId), target: String(e.downstreamFragmentId),
    label: { show: true, formatter: e.type + (e.distKey.length ? '(' + e.distKey.join(',') + ')' : ''), fontSize: 11 } }));
  // Drawn on hidden axes (column = depth from the sources, row within the column): symbols keep their size.
  const columns = Math.max(...depth.values()) + 1;
  const rows = Math.max(...perDepth.values());
  return { nodes, links, columns, rows };
}

function jobPage() {
  $('content').innerHTML = `
    <section><h2 id="job-title">Job</h2>
      <div id="job-summary" class="muted"></div>
      <div style="margin-top:8px">
        Parallelism <input id="scale-parallelism" size="12" placeholder="4, adaptive, bounded(2)">
        fragment <select id="scale-fragment"><option value="">whole job</option></select>
        <button id="scale-preview" class="primary">Scale…</button>
        <button id="pause">Pause</button> <button id="resume">Resume</button>
      </div></section>
    <section><h2>Fragment graph</h2><div id="graph" class="chart"></div></section>
    <section><h2>Fragments</h2><table id="fragments"></table></section>
    <div class="row">
      <section><h2>Source rows/s (committed)</h2><div id="rows-chart"></div></section>
      <section><h2>Barrier latency (ms)</h2><div id="latency-chart"></div></section>
    </div>`;
  const graph = echarts.init($('graph'));
  state.charts.push(graph);
  const width = () => Math.max(300, $('rows-chart').clientWidth - 10);
  const rowsPlot = new uPlot({ width: width(), height: 220, scales: { x: { time: true } }, axes: [{}, { size: 70 }],
    series: [{}, { label: 'rows/s', stroke: '#1f6feb', width: 2 }] }, [[], []], $('rows-chart'));
  const latencyPlot = new uPlot({ width: width(), height: 220, scales: { x: { time: true } }, axes: [{}, { size: 60 }],
    series: [{}, { label: 'p50', stroke: '#2da44e', width: 2 }, { label: 'p99', stroke: '#cf222e', width: 2 }] }, [[], [], []], $('latency-chart'));
  state.charts.push(rowsPlot, latencyPlot);
  $('scale-preview').onclick = () => scaleFromPage().catch(showError);
  $('pause').onclick = () => pauseResume('pause').catch(showError);
  $('resume').onclick = () => pauseResume('resume').catch(showError);
  let shown = '';
  return async () => {
    const c = await loadJobs();
    if (!state.job) { $('job-title').textContent = 'No job'; return; }
    const job = await api('/api/dash/jobs/' + encodeURIComponent(state.job));
    const s = job.fragments.job;
    $('job-title').textContent = 'Job ' + s.name;
    $('job-summary').textContent = `intent ${s.intent} · ${s.vnodeCount} vnodes · ${s.fragments} fragments · ${s.actors} actors · `
      + `${s.paused ? 'paused' : 'running'}${s.rescheduling ? ' · rescheduling' : ''} · committed epoch ${c.status.committedEpoch}`;
    const sel = $('scale-fragment');
    const roots = job.fragments.fragments.filter((f) => f.ensembleRoot === f.fragmentId).map((f) => String(f.fragmentId));
    if (sel.options.length !== roots.length + 1) {
      sel.innerHTML = '<option value="">whole job</option>' + roots.map((r) => `<option value="${r}">F${r}</option>`).join('');
    }
    const g = fragmentGraph(job);
    const key = JSON.stringify(g);
    if (key !== shown) {
      shown = key;
      graph.setOption({ tooltip: {}, animation: false, grid: { left: 20, right: 20, top: 20, bottom: 20 },
      xAxis: { type: 'value', show: false, min: -0.5, max: g.columns - 0.5 },
      yAxis: { type: 'value', show: false, inverse: true, // rows centred; room for three at least
        min: (g.rows - 1) / 2 - Math.max(g.rows, 3) / 2, max: (g.rows - 1) / 2 + Math.max(g.rows, 3) / 2 },
      series: [{ type: 'graph', coordinateSystem: 'cartesian2d', data: g.nodes, links: g.links,
        edgeSymbol: ['none', 'arrow'], edgeSymbolSize: 10, itemStyle: { color: '#d9ecff', borderColor: '#1f6feb' },
        label: { show: true, color: '#12324a', lineHeight: 18 }, lineStyle: { color: '#8aa0b5', width: 2 } }] }, true);
    }
    const extra = [...new Set(job.fragments.fragments.flatMap((f) => Object.keys(f).filter((k) => !KNOWN_FRAGMENT_FIELDS.has(k))))];
    $('fragments').innerHTML = '<tr><th>fragment</th><th>kind</th><th>operators</th><th>parallelism</th><th>units</th><th>upstream</th><th>workers</th>'
      + extra.map((k) => `<th>${esc(k === 'stats' ? 'load (last 30 s)' : k)}</th>`).join('') + '</tr>'
      + job.fragments.fragments.map((f) => `<tr data-fragment="${f.fragmentId}"><td>F${f.fragmentId}</td><td>${f.kind}</td><td>${esc(job.operators[f.fragmentId] || '')}</td>`
        + `<td>${f.actors.length}</td><td>${f.unitCount}</td><td>${f.upstream.map((u) => 'F' + u).join(', ')}</td>`
        + `<td>${[...new Set(f.actors.map((a) => a.workerId))].sort((a, b) => a - b).join(', ')}</td>`
        + extra.map((k) => `<td>${esc(k === 'stats' ? load(f[k]) : typeof f[k] === 'object' ? JSON.stringify(f[k]) : f[k] ?? '')}</td>`).join('') + '</tr>').join('');
    const h = (await api('/api/dash/history')).samples;
    const t = h.map((x) => x.atMs / 1000);
    rowsPlot.setData([t, h.map((x) => x.rowsPerSec[state.job] ?? null)]);
    latencyPlot.setData([t, h.map((x) => x.p50Ms < 0 ? null : x.p50Ms), h.map((x) => x.p99Ms < 0 ? null : x.p99Ms)]);
  };
}

async function scaleFromPage() {
  const parallelism = $('scale-parallelism').value.trim();
  const fragment = $('scale-fragment').value;
  const body = { parallelism, dryRun: true };
  if (fragment) body.fragment = Number(fragment);
  const preview = await post(`/api/dash/jobs/${encodeURIComponent(state.job)}/scale`, body);
  const text = `actors ${preview.actorsBefore} -> ${preview.actorsAfter}, ${preview.movedVnodes} vnodes and ${preview.movedSplits} splits move\n\n${preview.diff}`;
  if (!await confirmDialog(`Scale ${state.job}${fragment ? ' fragment ' + fragment : ''} to ${parallelism}?`, text)) return;
  body.dryRun = false;
  const r = await post(`/api/dash/jobs/${encodeURIComponent(state.job)}/scale`, body);
  $('page-error').textContent = '';
  $('job-summary').textContent = `scaled: actors ${r.actorsBefore} -> ${r.actorsAfter}, intent ${r.intent}`;
}

async function pauseResume(what) {
  if (!await confirmDialog(`${what === 'pause' ? 'Pause' : 'Resume'} ${state.job}?`,
    what === 'pause' ? 'Its sources stop at the next barrier; barriers keep flowing.' : 'Its sources continue from where they stopped.')) return;
  const r = await post(`/api/dash/jobs/${encodeURIComponent(state.job)}/${what}`);
  $('job-summary').textContent = r.changed ? `${what}d` : `already ${what}d`;
}

// ------------------------------------------------------------------ placement

function parseUnits(s) {
  const out = [];
  if (!s) return out;
  for (const part of s.split(',')) {
    const [a, b] = part.split('-').map(Number);
    for (let v = a; v <= (Number.isNaN(b) || b === undefined ? a : b); v++) out.push(v);
  }
  return out;
}

function owners(fragment) {
  const m = new Map();
  for (const a of fragment.actors) {
    const units = fragment.kind === 'SOURCE' ? a.splits : parseUnits(a.vnodes);
    for (const u of units) m.set(u, a);
  }
  return m;
}

function heatmap(el, title, fragment, moved) {
  const chart = echarts.init(el);
  state.charts.push(chart);
  const rows = fragment.actors.map((a) => `a${a.actorId} @w${a.workerId}`);
  const data = [];
  fragment.actors.forEach((a, y) => {
    const units = fragment.kind === 'SOURCE' ? a.splits : parseUnits(a.vnodes);
    for (const u of units) data.push([u, y, moved && moved.has(u) ? 2 : 1]);
  });
  chart.setOption({ animation: false, title: { text: title, textStyle: { fontSize: 13 } }, tooltip: { formatter: (p) => `${fragment.kind === 'SOURCE' ? 'split' : 'vnode'} ${p.value[0]} → ${rows[p.value[1]]}${p.value[2] === 2 ? ' (moved)' : ''}` },
    grid: { left: 110, right: 10, top: 30, bottom: 40 },
    xAxis: { type: 'category', data: [...Array(fragment.unitCount).keys()], name: fragment.kind === 'SOURCE' ? 'split' : 'vnode', nameLocation: 'middle', nameGap: 25 },
    yAxis: { type: 'category', data: rows },
    visualMap: { show: false, type: 'piecewise', dimension: 2, pieces: [{ value: 1, color: '#4c8bf5' }, { value: 2, color: '#e5534b' }] },
    series: [{ type: 'heatmap', data, progressive: 0 }] });
}

function placementPage() {
  $('content').innerHTML = '<section><h2 id="placement-title">Placement</h2><div id="placement-note" class="muted"></div></section><div id="maps"></div>';
  let shown = '';
  return async () => {
    await loadJobs();
    if (!state.job) return;
    const p = await api('/api/dash/placement/' + encodeURIComponent(state.job));
    const key = JSON.stringify(p);
    if (key === shown) return;
    shown = key;
    state.charts.forEach((c) => c.dispose());
    state.charts = [];
    $('placement-title').textContent = 'Placement of ' + state.job;
    $('placement-note').textContent = p.before ? `before and after the layout change seen at ${fmtTime(p.changedAtMs)}; red: moved to another actor`
      : 'no layout change seen since the dashboard started; the current layout';
    const maps = $('maps');
    maps.innerHTML = '';
    for (const f of p.after.fragments) {
      const before = p.before ? p.before.fragments.find((x) => x.fragmentId === f.fragmentId) : null;
      const moved = new Set();
      if (before) {
        const a = owners(f);
        const b = owners(before);
        for (const [u, actor] of a) if (!b.has(u) || b.get(u).actorId !== actor.actorId) moved.add(u);
      }
      const sec = document.createElement('section');
      sec.className = 'fragment-placement';
      sec.innerHTML = `<h2>F${f.fragmentId} ${f.kind.toLowerCase()} · ${f.actors.length} actor${f.actors.length === 1 ? '' : 's'} · ${moved.size} moved</h2><div class="row"></div>`;
      maps.appendChild(sec);
      const height = Math.max(140, 60 + 22 * Math.max(f.actors.length, before ? before.actors.length : 0)) + 'px';
      const boxes = (before ? ['before', 'after'] : ['now']).map(() => {
        const el = document.createElement('div');
        el.style.height = height;
        el.style.flex = '1';
        el.style.minWidth = '0';
        sec.lastChild.appendChild(el);
        return el;
      });
      if (before) heatmap(boxes[0], 'before', before, null);
      heatmap(boxes[boxes.length - 1], before ? 'after' : 'now', f, moved);
    }
  };
}

// ------------------------------------------------------------------ timeline

const KIND_COLORS = { reschedule: '#1f6feb', recovery: '#cf222e', pause: '#8a5a00', resume: '#2da44e', drain: '#8250df',
  autoscaler: '#bf3989', keeper: '#6e7781' };

function timelinePage() {
  $('content').innerHTML = '<section><h2>Timeline</h2><div id="timeline" class="chart" style="height:360px"></div></section>'
    + '<section><h2>Events</h2><table id="events"></table></section>';
  const chart = echarts.init($('timeline'));
  state.charts.push(chart);
  return async () => {
    await loadJobs();
    const [h, ev] = await Promise.all([api('/api/dash/history'), api('/api/dash/events')]);
    const jobs = [...new Set(h.samples.flatMap((s) => Object.keys(s.rowsPerSec)))].sort();
    const kinds = Object.keys(KIND_COLORS);
    const series = jobs.map((j) => ({ name: j + ' rows/s', type: 'line', showSymbol: false, yAxisIndex: 0,
      data: h.samples.filter((s) => j in s.rowsPerSec).map((s) => [s.atMs, s.rowsPerSec[j]]) }));
    for (const k of kinds) {
      series.push({ name: k, type: 'scatter', yAxisIndex: 1, symbolSize: 12, itemStyle: { color: KIND_COLORS[k] },
        data: ev.events.filter((e) => e.kind === k).map((e) => ({ value: [e.atMs, kinds.indexOf(k)], reason: `${e.subject}: ${e.reason}` })) });
    }
    chart.setOption({ animation: false, legend: { top: 0 }, grid: { left: 60, right: 90, top: 40, bottom: 30 },
      tooltip: { trigger: 'item', formatter: (p) => p.seriesType === 'scatter' ? `${fmtTime(p.value[0])} ${p.seriesName}<br>${esc(p.data.reason)}`
        : `${fmtTime(p.value[0])} ${p.seriesName}: ${p.value[1]}` },
      xAxis: { type: 'time' },
      yAxis: [{ type: 'value', name: 'rows/s' }, { type: 'category', data: kinds, position: 'right' }],
      series }, true);
    $('events').innerHTML = '<tr><th>time</th><th>kind</th><th>subject</th><th>reason</th></tr>'
      + ev.events.slice().sort((a, b) => b.atMs - a.atMs).map((e) => `<tr><td>${fmtTime(e.atMs)}</td><td class="kind" style="color:${KIND_COLORS[e.kind] || '#000'}">${esc(e.kind)}</td>`
        + `<td>${esc(e.subject)}</td><td>${esc(e.reason)}</td></tr>`).join('');
  };
}

// ------------------------------------------------------------------ views

function viewsPage() {
  $('content').innerHTML = `<section><h2>Materialized view</h2>
    View <input id="view-name" size="14"> rows per page <input id="view-limit" size="4" value="25">
    <button id="view-prev">◀ Previous</button> <button id="view-next">Next ▶</button> <span id="view-info" class="muted"></span>
    <table id="view-rows" style="margin-top:8px"></table></section>`;
  let offset = 0;
  $('view-name').value = state.job;
  $('view-prev').onclick = () => { offset = Math.max(0, offset - limit()); refresh().catch(showError); };
  $('view-next').onclick = () => { offset += limit(); refresh().catch(showError); };
  $('view-name').onchange = () => { offset = 0; refresh().catch(showError); };
  const limit = () => Math.max(1, Number($('view-limit').value) || 25);
  const refresh = async () => {
    await loadJobs();
    const name = $('view-name').value.trim() || state.job;
    if (!name) return;
    const v = await api(`/api/dash/views/${encodeURIComponent(name)}?offset=${offset}&limit=${limit()}`);
    const p = v.page;
    $('view-info').textContent = `rows ${p.rows.length ? offset + 1 : 0}–${offset + p.rows.length} of ${p.totalRows}`;
    $('view-rows').innerHTML = '<tr>' + p.columns.map((c) => `<th>${esc(c)}</th>`).join('') + '</tr>'
      + p.rows.map((r) => '<tr>' + r.values.map((x) => `<td>${esc(x)}</td>`).join('') + '</tr>').join('');
  };
  return refresh;
}

$('job-select').onchange = () => { setJob($('job-select').value); route(); };
window.addEventListener('hashchange', route);
route();
