// pwtune's dashboard. Everything it shows comes from the API: the
// recommendation from /v1/recommendation, the model's lines and the
// groupings from /v1/model, the hosts' preset times from /v1/hosts. The
// page formats and draws; it computes no answer of its own.
'use strict';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'pwtune.token';
const TARGET_MIN = 10;
const TARGET_MAX = 2000;

// ---- small helpers ---------------------------------------------------

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function row(dl, term, value) {
  dl.appendChild(el('dt', term));
  const dd = el('dd');
  if (value instanceof Node) dd.appendChild(value);
  else dd.textContent = String(value);
  dl.appendChild(dd);
  return dd;
}

function mib(kib) {
  const v = kib / 1024;
  return (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' MiB';
}

function bytes(n) {
  return n >= 1 << 30 ? (n / (1 << 30)).toFixed(1) + ' GiB' : Math.round(n / (1 << 20)) + ' MiB';
}

function ms(v) {
  return v >= 100 ? v.toFixed(0) + ' ms' : v.toFixed(1) + ' ms';
}

function age(iso) {
  if (!iso) return 'never';
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 90) return Math.round(s) + ' s ago';
  if (s < 5400) return Math.round(s / 60) + ' min ago';
  if (s < 172800) return Math.round(s / 3600) + ' h ago';
  return Math.round(s / 86400) + ' days ago';
}

function duration(a, b) {
  if (!a || !b) return '';
  const s = (Date.parse(b) - Date.parse(a)) / 1000;
  return s < 120 ? s.toFixed(0) + ' s' : (s / 60).toFixed(1) + ' min';
}

// fetch + JSON; an error carries the HTTP status, the problem's detail
// and Retry-After.
async function api(path, opts) {
  const r = await fetch(path, Object.assign({ headers: { Accept: 'application/json' } }, opts || {}));
  const body = await r.json().catch(() => ({}));
  if (!r.ok) {
    const e = new Error(body.detail || body.title || ('HTTP ' + r.status));
    e.status = r.status;
    e.body = body;
    e.retryAfter = r.headers.get('Retry-After');
    throw e;
  }
  return body;
}

// Chart colours from the page's own (light or dark) palette.
function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2'];
const DASHES = [[], [6, 3], [2, 3], [8, 3, 2, 3]];

function chartDefaults() {
  Chart.defaults.color = cssVar('--fg');
  Chart.defaults.borderColor = cssVar('--line');
  Chart.defaults.font.family = 'system-ui, sans-serif';
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.animation = false;
}

// Vertical error bars for points carrying yMin and yMax.
const errorBars = {
  id: 'errorBars',
  afterDatasetsDraw(chart) {
    const ctx = chart.ctx;
    chart.data.datasets.forEach((ds, i) => {
      if (!ds.errorBars || !chart.isDatasetVisible(i)) return;
      const meta = chart.getDatasetMeta(i);
      const y = chart.scales[meta.yAxisID];
      ctx.save();
      ctx.strokeStyle = ds.borderColor;
      ctx.lineWidth = 1;
      meta.data.forEach((pt, j) => {
        const d = ds.data[j];
        if (d.yMin === undefined) return;
        const top = y.getPixelForValue(d.yMax);
        const bottom = y.getPixelForValue(d.yMin);
        ctx.beginPath();
        ctx.moveTo(pt.x, top);
        ctx.lineTo(pt.x, bottom);
        ctx.moveTo(pt.x - 3, top);
        ctx.lineTo(pt.x + 3, top);
        ctx.moveTo(pt.x - 3, bottom);
        ctx.lineTo(pt.x + 3, bottom);
        ctx.stroke();
      });
      ctx.restore();
    });
  },
};

const charts = {};

function drawChart(id, config) {
  if (charts[id]) charts[id].destroy();
  charts[id] = new Chart($(id), config);
  return charts[id];
}

// ---- host ------------------------------------------------------------

// The last answers of GET /v1/hosts and GET /v1/runs (the run being
// watched kept up to date by poll()): the host block and the hosts
// table are drawn from both.
let hostsRes = null;
let runsNow = null;

function active(r) {
  return r.status === 'queued' || r.status === 'running';
}

// The run in progress on host h: queued or running. Without a record of
// this host yet, the run this daemon is measuring (it carries progress).
function liveRun(h) {
  if (!runsNow) return null;
  return runsNow.find((r) => active(r) && (h ? r.host_id === h.id : !!r.progress)) || null;
}

// A run's points as the run, its progress and the log count them: each
// point that ended, measured or skipped, of the profile's points.
function pointsOf(r) {
  const p = r.progress;
  return p ? { done: p.points_done, total: p.points_total } : { done: r.points_done, total: r.points_total };
}

// Where a run in progress is. Its points come first, then the stacks'
// probes and the answers for the verify targets, steps counted apart from
// the points; the run stays "running" until they are done, and only then
// is it this host's last run.
function runPhase(r) {
  const name = 'run #' + r.id;
  if (r.status === 'queued') return name + ' queued';
  const p = r.progress;
  const pts = pointsOf(r);
  if (!p || p.step === 'points') return name + ' in progress: ' + pts.done + ' of ' + pts.total + ' points done';
  const of = ' (' + Math.min(p.step_total, p.step_done + 1) + ' of ' + p.step_total + ')';
  return name + ' in progress: its ' + pts.total + ' points done, ' +
    (p.step === 'verifications' ? 'verifying the answers' + of : 'probing the stacks' + of);
}

// Stale means the host's facts changed since its newest finished run. No
// finished run yet is not that, and neither is a run in progress: while
// one runs, the page names it and raises no flag.
function renderHost() {
  if (!hostsRes) return;
  const dl = $('host');
  const h = hostsRes.hosts.find((x) => x.this_host);
  const live = liveRun(h);
  dl.replaceChildren();
  if (!h) {
    row(dl, 'Status', 'no measurements of this host yet' + (live ? ': ' + runPhase(live) : ''));
    $('stale-badge').hidden = true;
    return;
  }
  const f = h.facts;
  row(dl, 'Name', f.hostname || h.id.slice(0, 8)).id = 'host-name';
  document.title = 'pwtune: ' + (f.hostname || h.id.slice(0, 8));
  row(dl, 'CPU', f.cpu_model + ' (' + f.online_cpus + ' online, ' + h.effective_cpus + ' effective)');
  const fp = el('code', h.current_fingerprint || h.fingerprint);
  row(dl, 'Fingerprint', fp);
  const b = h.memory_budget;
  row(dl, 'Memory budget', bytes(b.bytes) + ' (set by ' + ({ cgroup: 'the cgroup limit', memavailable: 'MemAvailable', config: 'the configuration' }[b.source] || b.source) + '; ' + bytes(f.mem_total_bytes) + ' installed)');
  row(dl, 'Libraries', 'libsodium ' + f.libsodium_version + ', libargon2 ' + f.libargon2_version);
  const last = h.last_run ? '#' + h.last_run + ', ' + age(h.last_run_finished) : '';
  row(dl, 'Last run', live ? (last ? last + '; ' : 'none yet; ') + runPhase(live) : last || 'none');
  if (h.group) row(dl, 'Group', h.group);
  const stale = !!h.last_run && h.stale;
  let text = 'no';
  if (stale) text = live ? 'yes: the host changed since run #' + h.last_run + '; run #' + live.id + ' measures it again' : 'yes: the host changed since the last run; start a re-benchmark';
  else if (!h.last_run) text = 'no finished run of this host yet' + (live ? '' : ': start a benchmark');
  row(dl, 'Stale', text).className = stale ? 'stale-text' : '';
  $('stale-badge').hidden = !stale || !!live;
}

// A new state of the watched run: the host block follows it, and the
// hosts table when the run changes phase.
let livePhase = '';
function runUpdated(r) {
  if (!runsNow) runsNow = [];
  const i = runsNow.findIndex((x) => x.id === r.id);
  if (i >= 0) runsNow[i] = r;
  else runsNow.unshift(r);
  renderHost();
  const phase = active(r) ? r.id + (/verifying/.test(runPhase(r)) ? ' verifying' : ' ' + r.status) : '';
  if (phase !== livePhase) {
    livePhase = phase;
    renderHosts();
    if (/verifying/.test(phase)) loadModel(false);
  }
}

// ---- recommendation calculator ---------------------------------------

function rangeToMs(v) {
  return Math.round(TARGET_MIN * Math.pow(TARGET_MAX / TARGET_MIN, v / 1000));
}

function msToRange(t) {
  const c = Math.min(TARGET_MAX, Math.max(TARGET_MIN, t));
  return Math.round(1000 * Math.log(c / TARGET_MIN) / Math.log(TARGET_MAX / TARGET_MIN));
}

function syncRange() {
  const t = Number($('target').value);
  $('target-range').value = msToRange(t);
  $('target-range').setAttribute('aria-valuetext', t + ' milliseconds');
}

// A copy button. Without a clipboard (a page not served over HTTPS or
// from localhost, a refused permission) it selects node, when given, for
// the reader to copy.
function copyButton(getText, label, node) {
  const b = el('button', 'Copy', 'copy');
  b.type = 'button';
  b.setAttribute('aria-label', label);
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(getText());
      b.textContent = 'Copied';
    } catch (e) {
      if (node) {
        const range = document.createRange();
        range.selectNodeContents(node);
        const sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        b.textContent = 'Selected: press Ctrl+C';
      } else {
        b.textContent = 'Select and copy';
      }
    }
    setTimeout(() => { b.textContent = 'Copy'; }, 1500);
  });
  return b;
}

// ---- stacks: each client stack's own answer, as tabs -----------------

// The stacks of the last default answer (GET /v1/recommendation without
// stack=), and the tab shown.
let stacksNow = [];
let stackTab = '';

function ratioText(r) {
  return r === null || r === undefined ? '' : r.toFixed(2) + ' × the target';
}

function showStackPanel(name) {
  const st = stacksNow.find((x) => x.name === name);
  const panel = $('stack-panel');
  stackTab = name;
  for (const t of $('stack-tabs').children) {
    const on = t.dataset.stack === name;
    t.setAttribute('aria-selected', on ? 'true' : 'false');
    t.tabIndex = on ? 0 : -1;
    if (on) panel.setAttribute('aria-labelledby', t.id);
  }
  if (!st) {
    panel.hidden = true;
    return;
  }
  const dl = el('dl');
  dl.id = 'stack-params';
  row(dl, 'Runtime', st.runtime);
  row(dl, 'Library', st.library);
  if (!st.available) {
    row(dl, 'Not available', st.why).className = 'error';
    panel.replaceChildren(dl);
    panel.hidden = false;
    return;
  }
  row(dl, 'Measured', st.how + (st.answered_as ? ', answered as ' + st.answered_as +
    ' (its runtime hashes through ' + st.answered_as + '\'s own file here: that library\'s measured curve stands for it)' : '') +
    (st.why ? ' (' + st.why + ')' : '')).id = 'stack-how';
  row(dl, 'Parameters', 'm = ' + st.m_kib + ' KiB (' + mib(st.m_kib) + '), t = ' + st.t + ', p = ' + st.p + (st.met ? '' : ' (the closest admissible: over the target)'));
  row(dl, 'Predicted', ms(st.predicted.ms) + ' (median ' + ms(st.predicted.p50_ms) + ')');
  if (st.correction) {
    const c = st.correction;
    row(dl, 'Correction', (c.knots && c.knots.length >= 2
      ? 'its own times at ' + c.knots.length + ' measured points'
      : '× ' + c.c.toFixed(2) + ' ' + (c.d >= 0 ? '+ ' : '− ') + Math.abs(c.d).toFixed(1) + ' ms') +
      ', from ' + c.probe_points + ' probe points and ' + c.observations + ' observations' +
      (c.p95_over_median ? '; p95 ' + c.p95_over_median.toFixed(2) + ' × its median' : '') +
      (c.applied === false ? ' (not applied: ' + (c.shares_library
        ? 'it hashes through ' + c.shares_library + ', the library file this host\'s curve measured'
        : 'the library\'s own curve stands for it') + ')' : '')).id = 'stack-correction';
  }
  const ratio = ratioText(st.default_answer_ratio);
  if (ratio) row(dl, 'The default answer here', ratio).className = st.default_answer_ratio > 1 ? 'error' : '';
  // Its own answer's notes (the answer's own stack: the answer's, above).
  for (const n of st.notes || []) row(dl, 'Note', n).classList.add('stack-note');
  const parts = [dl];
  if (st.snippet) {
    const pre = el('pre');
    const code = el('code', st.snippet);
    code.id = 'stack-snippet';
    pre.appendChild(code);
    const b = copyButton(() => st.snippet, 'Copy the ' + st.name + ' snippet', code);
    b.id = 'stack-copy';
    parts.push(b, pre);
  }
  panel.replaceChildren(...parts);
  panel.hidden = false;
}

// One tab per stack of the default answer; name's selected.
function showStacks(stacks, name) {
  stacksNow = stacks || [];
  const tabs = $('stack-tabs');
  tabs.replaceChildren(...stacksNow.map((st) => {
    const t = el('button', st.name, st.available ? '' : 'unavailable');
    t.type = 'button';
    t.id = 'stack-tab-' + st.name;
    t.dataset.stack = st.name;
    t.setAttribute('role', 'tab');
    t.setAttribute('aria-controls', 'stack-panel');
    t.addEventListener('click', () => showStackPanel(st.name));
    return t;
  }));
  $('snippets').hidden = stacksNow.length === 0;
  // The selector lists the stacks that answer, and keeps its choice.
  const sel = $('stack');
  const chosen = sel.value;
  const first = el('option', 'the default');
  first.value = '';
  sel.replaceChildren(first, ...stacksNow.filter((st) => st.available || st.name === chosen).map((st) => {
    const o = el('option', st.name);
    o.value = st.name;
    return o;
  }));
  sel.value = chosen;
  showStackPanel(stacksNow.some((x) => x.name === stackTab) && stackTab !== '' ? stackTab : name);
}

// Arrow keys move between the tabs.
function tabKeys(ev) {
  const tabs = [...$('stack-tabs').children];
  const i = tabs.findIndex((t) => t.dataset.stack === stackTab);
  let j = -1;
  if (ev.key === 'ArrowRight') j = (i + 1) % tabs.length;
  else if (ev.key === 'ArrowLeft') j = (i - 1 + tabs.length) % tabs.length;
  else if (ev.key === 'Home') j = 0;
  else if (ev.key === 'End') j = tabs.length - 1;
  if (j < 0 || !tabs.length) return;
  ev.preventDefault();
  showStackPanel(tabs[j].dataset.stack);
  tabs[j].focus();
}

function showAnswer(a, out) {
  const dl = el('dl');
  dl.id = 'answer-params';
  const st = (a.stacks || []).find((x) => x.name === a.for);
  const how = a.how || (st && st.how);
  const as = a.how ? a.answered_as : st && st.answered_as;
  row(dl, 'For', a.for + (how ? ' (' + how + (as ? ', answered as ' + as : '') + ')' : '') + (a.why ? ': ' + a.why : '')).id = 'answer-for';
  row(dl, 'Parameters', 'm = ' + a.m_kib + ' KiB (' + mib(a.m_kib) + '), t = ' + a.t + ', p = ' + a.p + ' (' + a.variant + ', ' + a.backend + ')');
  const prefix = el('span');
  const code = el('code', a.phc_prefix);
  code.id = 'phc-prefix';
  prefix.append(code, ' ', copyButton(() => a.phc_prefix, 'Copy the PHC prefix'));
  row(dl, 'PHC prefix', prefix);
  row(dl, 'Predicted', ms(a.predicted.ms) + ' at p' + a.predicted.percentile + ' (median ' + ms(a.predicted.p50_ms) + ') with ' + a.latency.concurrency + ' at once').id = 'predicted';
  // What the daemon's background check measured of these parameters.
  if (a.verified !== undefined) {
    const v = a.verified;
    row(dl, 'Measured', v ? ms(v.measured_ms) + ' at p' + v.percentile + ' over ' + v.samples + ' hashes' + (v.checks > 1 ? ' (the mean of ' + v.checks + ' checks of these parameters)' : '') + (v.by === 'verification' ? ' by the run\'s verification' : '') + ', ' + age(v.at) + (v.in_band ? ' (within 90-100 % of the target)' : ' (outside 90-100 % of the target)') :
      'not yet: predicted only (the daemon measures the answers it gave when it is idle)').id = 'answer-measured';
  }
  row(dl, 'Capacity', a.capacity_per_s.toFixed(1) + ' hashes per second');
  row(dl, 'Memory in flight', mib(a.memory_in_flight_kib));
  row(dl, 'Floor', a.floor.name + (a.floor.decided ? ' (decided the answer)' : a.floor.met ? ' (met)' : ''));
  row(dl, 'Attacker', Math.round(a.attacker.gpu_guesses_per_s).toLocaleString('en') + ' guesses per second on one GPU, $' + a.attacker.usd_per_1e9_guesses.toFixed(0) + ' per billion guesses');
  if (a.stale) row(dl, 'Note', 'the model was measured before the host changed: re-benchmark').className = 'stale-text';
  // The note of a poor model in the warning colour, first.
  for (const n of a.notes || []) row(dl, 'Note', n).className = /^the model is poor: /.test(n) ? 'warn-text' : '';
  out.replaceChildren(dl);
}

let answerSeq = 0;
async function loadAnswer() {
  const out = $('answer');
  const seq = ++answerSeq;
  const q = new URLSearchParams();
  for (const [k, v] of new FormData($('calc'))) if (String(v).trim() !== '') q.set(k, String(v).trim());
  // The stacks come with the default answer: asked too when a stack is.
  const dq = new URLSearchParams(q);
  dq.delete('stack');
  try {
    const [a, d] = await Promise.all([api('/v1/recommendation?' + q.toString()),
      q.has('stack') ? api('/v1/recommendation?' + dq.toString()).catch(() => null) : null]);
    if (seq !== answerSeq) return;
    showAnswer(a, out);
    const dflt = d || a;
    if (dflt.stacks) showStacks(dflt.stacks, q.get('stack') || dflt.for);
    if (q.has('stack')) showStackPanel(q.get('stack'));
    out.dataset.query = q.toString();
    loadGroup(dq);
  } catch (e) {
    if (seq !== answerSeq) return;
    out.replaceChildren();
    const p = el('p', (e.status === 503 ? 'Not ready: ' : e.status === 422 ? 'Cannot answer: ' : 'Error: ') + e.message, 'error');
    out.appendChild(p);
    if (e.status === 422 && e.body && e.body.closest) {
      out.appendChild(el('p', 'Closest admissible: ' + e.body.closest.phc_prefix + ', ' + ms(e.body.closest.predicted.ms)));
    }
    $('snippets').hidden = true;
    out.dataset.query = q.toString();
  }
}

let answerTimer = 0;
function answerSoon() {
  clearTimeout(answerTimer);
  answerTimer = setTimeout(loadAnswer, 120);
}

// ---- charts ----------------------------------------------------------

function key(o) {
  return o.backend + ' t=' + o.t + (o.p > 1 ? ' p=' + o.p : '');
}

function drawMemory(model) {
  const series = new Map();
  // The memory axis spans the sizes measured and drawn, not from 0 or
  // the power of ten below them.
  const sizes = model.points.filter((p) => p.k === 1).map((p) => p.m_kib / 1024)
    .concat(...model.lines.map((l) => l.points.map((p) => p.m_kib / 1024)));
  const lo = sizes.length ? Math.min(...sizes) : undefined;
  const hi = sizes.length ? Math.max(...sizes) : undefined;
  const colour = (k) => {
    if (!series.has(k)) series.set(k, PALETTE[series.size % PALETTE.length]);
    return series.get(k);
  };
  const datasets = [];
  for (const l of model.lines) {
    const k = key(l);
    datasets.push({
      type: 'line', label: k + ' model', data: l.points.map((p) => ({ x: p.m_kib / 1024, y: p.p50_ms })),
      borderColor: colour(k), backgroundColor: colour(k), pointRadius: 0, borderWidth: 1.5,
      borderDash: l.backend === 'libargon2' ? [6, 3] : [],
    });
  }
  const groups = new Map();
  for (const p of model.points) {
    if (p.k !== 1) continue;
    const k = key(p);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push({ x: p.m_kib / 1024, y: p.stats.median_ms, yMin: p.stats.min_ms, yMax: p.stats.p95_ms, noisy: !!(p.noise && p.noise.noisy) });
  }
  // A noisy point: a larger triangle ringed in the warning colour.
  const warn = cssVar('--warn-fg');
  for (const [k, data] of groups) {
    datasets.push({
      type: 'scatter', label: k + ' measured', data, borderColor: colour(k), backgroundColor: colour(k), errorBars: true,
      pointStyle: data.map((d) => (d.noisy ? 'triangle' : 'circle')), pointRadius: data.map((d) => (d.noisy ? 7 : 3.5)),
      pointBorderColor: data.map((d) => (d.noisy ? warn : colour(k))), pointBorderWidth: data.map((d) => (d.noisy ? 2 : 1)),
    });
  }
  drawChart('chart-memory', {
    data: { datasets },
    plugins: [errorBars],
    options: {
      parsing: true,
      scales: {
        x: { type: 'logarithmic', min: lo && lo / 1.1, max: hi && hi * 1.1, title: { display: true, text: 'memory (MiB)' } },
        y: { type: 'logarithmic', title: { display: true, text: 'ms per hash' } },
      },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
    },
  });
}

function drawConcurrency(model) {
  const sel = $('conc-series');
  const list = model.concurrency;
  const previous = sel.value;
  sel.replaceChildren(...list.map((s, i) => {
    const o = el('option', s.backend + ', m = ' + mib(s.m_kib) + ', t = ' + s.t + ', p = ' + s.p);
    o.value = String(i);
    return o;
  }));
  if (previous && Number(previous) < list.length) sel.value = previous;
  const s = list[Number(sel.value || 0)];
  const datasets = [];
  if (s) {
    const pts = s.points.slice().sort((a, b) => a.k - b.k);
    ['p50_ms', 'p95_ms', 'p99_ms'].forEach((f, i) => datasets.push({
      type: 'line', label: f.replace('_ms', '') + ' latency (ms)', yAxisID: 'y',
      data: pts.map((p) => ({ x: p.k, y: p[f] })), borderColor: PALETTE[i], backgroundColor: PALETTE[i], borderDash: DASHES[i],
    }));
    datasets.push({
      type: 'line', label: 'throughput (hashes/s)', yAxisID: 'y1',
      data: pts.map((p) => ({ x: p.k, y: p.throughput_per_s })), borderColor: PALETTE[3], backgroundColor: PALETTE[3], borderDash: DASHES[3],
    });
  }
  sel.disabled = list.length === 0;
  drawChart('chart-concurrency', {
    data: { datasets },
    options: {
      scales: {
        x: { type: 'linear', title: { display: true, text: 'hashes at once' }, ticks: { precision: 0 } },
        y: { type: 'linear', position: 'left', beginAtZero: true, title: { display: true, text: 'latency (ms)' } },
        y1: { type: 'linear', position: 'right', beginAtZero: true, grid: { drawOnChartArea: false }, title: { display: true, text: 'hashes per second' } },
      },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
    },
  });
}

function drawVerify(model) {
  const v = model.verifications;
  const data = v.map((x) => ({ x: x.predicted_ms, y: x.measured_ms, target: x.target_ms, params: x.params }));
  const hi = Math.max(10, ...v.map((x) => Math.max(x.predicted_ms, x.measured_ms))) * 1.1;
  drawChart('chart-verify', {
    data: {
      datasets: [
        { type: 'scatter', label: 'verified answers', data, borderColor: PALETTE[0], backgroundColor: PALETTE[0], pointRadius: 4 },
        { type: 'line', label: 'measured = predicted', data: [{ x: 0, y: 0 }, { x: hi, y: hi }], borderColor: cssVar('--muted'), borderDash: [4, 4], pointRadius: 0, borderWidth: 1 },
      ],
    },
    options: {
      scales: {
        x: { type: 'linear', min: 0, max: hi, title: { display: true, text: 'predicted (ms)' } },
        y: { type: 'linear', min: 0, max: hi, title: { display: true, text: 'measured (ms)' } },
      },
      plugins: {
        legend: { position: 'bottom', labels: { boxWidth: 12 } },
        tooltip: {
          callbacks: {
            label: (c) => c.raw.target ? 'target ' + c.raw.target + ' ms: m=' + c.raw.params.m_kib + ' t=' + c.raw.params.t + ', predicted ' + ms(c.raw.x) + ', measured ' + ms(c.raw.y) : '',
          },
        },
      },
    },
  });
}

// A poor model (engine/model.h's verdict) and noisy points, as banners
// a reader cannot miss.
function showModelWarnings(model) {
  const poor = model.model.quality === 'poor';
  const w = $('model-warning');
  w.textContent = poor ? 'Poor model: ' + model.model.quality_reason + '. Predicted times are rough: re-benchmark on a quiet host.' : '';
  w.hidden = !poor;
  const pts = model.points.filter((p) => p.status === undefined || p.status === 'ok');
  const noisy = pts.filter((p) => p.noise && p.noise.noisy);
  const n = $('noisy-warning');
  n.textContent = noisy.length ? noisy.length + ' of ' + pts.length + ' points were flagged noisy (the host was busy or the spread wide; triangles in the chart): ' +
    noisy.map((p) => p.backend + ' ' + mib(p.m_kib) + ' t=' + p.t + (p.k > 1 ? ' k=' + p.k : '')).join(', ') + '.' : '';
  n.hidden = noisy.length === 0;
}

let modelRun = null;
// The run of the model in use when last asked (0: none yet). A run puts
// its model in use once its points are measured, before its answers are
// verified and it ends: a new one means a new answer.
let modelRunId;
async function loadModel(force) {
  try {
    const model = await api('/v1/model');
    if (modelRunId !== undefined && modelRunId !== model.run_id) answerSoon();
    modelRunId = model.run_id;
    // A run's first model (its first backend) and its whole one share
    // the run id: the curves and the verdict tell them apart.
    const vkey = [model.run_id, model.model.curves.length, model.model.quality, model.points.length, model.verifications.length].join(':');
    if (!force && modelRun === vkey) return;
    modelRun = vkey;
    const mm = model.model;
    const pct = (v) => (v === null || v === undefined ? 'unknown' : (100 * v).toFixed(1) + ' %');
    // The curves other runs measured (grids stored beside it), named.
    const others = mm.curves.filter((c) => c.run_id !== null && c.run_id !== undefined && c.run_id !== model.run_id)
      .map((c) => c.backend + ' ' + c.variant + ' p = ' + c.p + ' from run #' + c.run_id);
    $('model-summary').textContent = 'Model from run #' + model.run_id + ' (' + age(model.created) + ')' +
      (others.length ? ', with ' + others.join(', ') : '') + ', ' + model.points.length + ' points measured; leave-one-out error ' +
      (mm.loo_median_error === null || mm.loo_median_error === undefined ? 'unknown (too few points)' : 'median ' + pct(mm.loo_median_error) + ', worst ' + pct(mm.loo_worst_error)) + '; ' + model.verifications.length + ' verified answers.';
    showModelWarnings(model);
    drawMemory(model);
    drawConcurrency(model);
    drawVerify(model);
    $('conc-series').onchange = () => drawConcurrency(model);
  } catch (e) {
    if (e.status === 503) modelRunId = 0;
    $('model-warning').hidden = true;
    $('noisy-warning').hidden = true;
    $('model-summary').textContent = e.status === 503 ? 'No model yet (' + e.message + ').' : 'Error: ' + e.message;
  }
}

// A drift the background checks found (/readyz): a banner, and the run
// it queued shows in the runs below.
async function loadDrift() {
  // /readyz is 503 until a model exists: nothing could have drifted.
  if (!modelRunId) {
    $('drift-warning').hidden = true;
    return;
  }
  try {
    const r = await api('/readyz');
    const d = r.drift || {};
    const w = $('drift-warning');
    w.textContent = d.detected ? 'The host drifted: ' + d.why + '. A run was queued to measure it again; answers stand on the old model until it ends.' : '';
    w.hidden = !d.detected;
  } catch (e) {
    $('drift-warning').hidden = true;
  }
}

// ---- runs ------------------------------------------------------------

let watching = null;

function showMessage(text, cls) {
  const m = $('run-message');
  m.textContent = text;
  m.className = cls || '';
}

function explain(e) {
  if (e.status === 401) return 'The token was not accepted (401): check it and try again. It is in the token file of the daemon\'s state directory.';
  if (e.status === 409) return 'A run is already queued or running (409): wait for it to end, or cancel it.';
  if (e.status === 429) return 'Too many requests (429): ' + e.message + (e.retryAfter ? '; try again in ' + e.retryAfter + ' s.' : '.');
  if (e.status === 403) return 'Refused (403): ' + e.message;
  return 'Error' + (e.status ? ' (' + e.status + ')' : '') + ': ' + e.message;
}

function authHeaders() {
  const t = $('token').value.trim();
  return { Accept: 'application/json', 'Content-Type': 'application/json', Authorization: 'Bearer ' + t };
}

async function startRun(ev) {
  ev.preventDefault();
  const token = $('token').value.trim();
  if (!token) {
    showMessage('Enter the API token first: it is in the token file of the daemon\'s state directory.', 'error');
    $('token').focus();
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  try {
    const run = await api('/v1/runs', { method: 'POST', headers: authHeaders(), body: JSON.stringify({ profile: $('run-profile').value }) });
    showMessage('Run #' + run.id + ' started (' + run.profile + ').', 'ok');
    watch(run.id);
    loadRuns();
  } catch (e) {
    if (e.status === 401) sessionStorage.removeItem(TOKEN_KEY);
    showMessage(explain(e), 'error');
    if (e.status === 409) loadRuns();
  }
}

async function cancelRun() {
  if (!watching) return;
  try {
    await api('/v1/runs/' + watching, { method: 'DELETE', headers: authHeaders() });
    showMessage('Run #' + watching + ' is being cancelled.', 'ok');
  } catch (e) {
    showMessage(e.status === 409 ? 'Run #' + watching + ' is not running any more (409).' : explain(e), 'error');
  }
}

function watch(id) {
  if (watching === id) return;
  watching = id;
  $('run-live').hidden = false;
  poll();
}

async function poll() {
  if (!watching) return;
  const id = watching;
  try {
    const r = await api('/v1/runs/' + id);
    runUpdated(r);
    const { done, total } = pointsOf(r);
    const p = r.progress;
    const bar = $('run-progress');
    bar.max = Math.max(1, total);
    bar.value = done;
    $('run-progress-label').textContent = 'Run #' + id;
    $('run-progress-text').textContent = r.status + ': ' + done + ' of ' + total + ' points' +
      (p && p.step !== 'points' ? ', ' + (p.step === 'verifications' ? 'verifying the answers' : 'probing the stacks') + ' (' + Math.min(p.step_total, p.step_done + 1) + ' of ' + p.step_total + ')' : '') +
      (p && typeof p.eta_s === 'number' && p.eta_s > 0 ? ', about ' + Math.round(p.eta_s) + ' s left' : '');
    if (r.status === 'queued' || r.status === 'running') {
      setTimeout(poll, 1000);
      return;
    }
    watching = null;
    $('run-live').hidden = true;
    showMessage('Run #' + id + ' ' + r.status + (r.error ? ': ' + r.error : '') + '.', r.status === 'done' ? 'ok' : 'error');
    loadRuns();
    loadModel(true);
    loadHosts();
    answerSoon();
    // The daemon verifies answers after a run: the last chart fills in.
    setTimeout(() => loadModel(false), 8000);
  } catch (e) {
    setTimeout(poll, 2000);
  }
}

// A run's noisy points: a warning badge, not grey text.
function noisyCell(n) {
  const td = el('td');
  if (n > 0) td.appendChild(el('span', n + ' noisy', 'badge warn'));
  else td.textContent = 'none';
  return td;
}

async function loadRuns() {
  const body = $('runs').tBodies[0];
  try {
    const runs = (await api('/v1/runs')).runs;
    runsNow = runs;
    renderHost();
    body.replaceChildren(...runs.map((r) => {
      const tr = el('tr');
      tr.dataset.status = r.status;
      const { done, total } = pointsOf(r);
      const status = el('td', r.status, 'status-' + r.status);
      if (r.error) status.title = r.error;
      tr.append(el('td', '#' + r.id), status, el('td', r.trigger), el('td', r.profile),
        el('td', duration(r.started, r.finished)), el('td', done + '/' + total),
        noisyCell(r.noisy_points), el('td', r.created.replace('T', ' ').replace('Z', ' UTC')));
      if ((r.status === 'running' || r.status === 'queued') && !watching) watch(r.id);
      return tr;
    }));
    if (runs.length === 0) {
      const tr = el('tr');
      const td = el('td', 'No runs yet.');
      td.colSpan = 8;
      tr.appendChild(td);
      body.appendChild(tr);
    }
  } catch (e) {
    body.replaceChildren();
    showMessage('Runs: ' + e.message, 'error');
  }
}

// ---- hosts -----------------------------------------------------------

// The group's answer for the calculator's query: which host decides it.
let hostsGroup = '';
let decider = '';
let groupSeq = 0;

function markDecider() {
  for (const tr of $('hosts').tBodies[0].rows) {
    const on = decider !== '' && tr.dataset.host === decider;
    tr.classList.toggle('decider', on);
    const badge = tr.querySelector('.badge.decides');
    if (on && !badge) tr.cells[0].appendChild(el('span', 'decides ' + hostsGroup, 'badge decides'));
    if (!on && badge) badge.remove();
  }
}

async function loadGroup(q) {
  const p = $('group-answer');
  const seq = ++groupSeq;
  if (!hostsGroup) {
    p.hidden = true;
    return;
  }
  const gq = new URLSearchParams(q);
  gq.delete('stack');
  gq.set('scope', 'group');
  let text;
  try {
    const a = await api('/v1/recommendation?' + gq.toString());
    if (seq !== groupSeq) return;
    decider = a.decided_by.host_id;
    text = 'Group ' + hostsGroup + ', ' + a.hosts.length + ' host' + (a.hosts.length === 1 ? '' : 's') + ' with a fresh run: ' +
      a.phc_prefix + ' holds on every one; decided by ' + (a.decided_by.cpu_model || '') + ' ' + decider.slice(0, 8) +
      ' (' + ms(a.predicted.ms) + ' predicted there).';
    if (a.excluded.length) text += ' Left out: ' + a.excluded.map((x) => x.host_id.slice(0, 8) + ' (' + x.reason + ')').join(', ') + '.';
    if (a.store && !a.store.reachable) text += ' The store is unreachable: hosts as of ' + a.store.hosts_as_of + '.';
  } catch (e) {
    if (seq !== groupSeq) return;
    decider = e.body && e.body.closest ? e.body.closest.decided_by.host_id : '';
    text = 'Group ' + hostsGroup + ': ' + e.message;
  }
  p.textContent = text;
  p.hidden = false;
  markDecider();
}

// The presets by family, one family in the table at a time so that it
// stays as wide as the page (the store's hosts predict 17 of them). The
// engine lists them family by family; a name no pattern knows falls in
// the last family.
const PRESET_FAMILIES = [
  ['seed CLI', /^Argon2/],
  ['OWASP', /^OWASP-/],
  ['RFC 9106', /^RFC9106-/],
  ['libsodium', /^libsodium-/],
  ['library defaults', /./],
];
let presetFamily = 'OWASP';

function familyOf(name) {
  return PRESET_FAMILIES.find(([, re]) => re.test(name))[0];
}

// A preset's name may break after a hyphen or between words; its
// parameters in the title.
function presetHead(p) {
  const th = el('th', null, 'preset');
  p.name.split(/(?<=-)|(?<=[a-z0-9])(?=[A-Z])/).forEach((part, i) => {
    if (i > 0) th.appendChild(el('wbr'));
    th.appendChild(document.createTextNode(part));
  });
  th.title = 'm = ' + p.m_kib + ' KiB (' + mib(p.m_kib) + '), t = ' + p.t + ', p = ' + p.p;
  return th;
}

function renderHosts() {
  if (!hostsRes) return;
  const table = $('hosts');
  const res = hostsRes;
  const all = [];
  const known = new Map();
  for (const h of res.hosts) {
    for (const p of h.presets) {
      if (!known.has(p.name)) all.push(p.name);
      known.set(p.name, p);
    }
  }
  const families = [];
  for (const n of all) if (!families.includes(familyOf(n))) families.push(familyOf(n));
  if (families.length && !families.includes(presetFamily)) presetFamily = families[0];
  const sel = $('preset-family');
  sel.replaceChildren(...families.map((f) => {
    const o = el('option', f + ' (' + all.filter((n) => familyOf(n) === f).length + ')');
    o.value = f;
    return o;
  }));
  sel.value = presetFamily;
  sel.parentElement.hidden = families.length < 2;
  const names = all.filter((n) => familyOf(n) === presetFamily);
  const head = el('tr');
  head.append(el('th', 'Host'), el('th', 'Group'), el('th', 'CPUs'), el('th', 'Last run'));
  for (const n of names) head.appendChild(presetHead(known.get(n)));
  for (const th of head.children) th.scope = 'col';
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(...res.hosts.map((h) => {
    const tr = el('tr');
    tr.dataset.host = h.id;
    const live = liveRun(h);
    const f = h.facts || {};
    const name = el('th', f.hostname || f.cpu_model || h.id);
    name.scope = 'row';
    name.appendChild(el('small', ' ' + (f.hostname && f.cpu_model ? f.cpu_model + ' ' : '') + h.id.slice(0, 8) + (h.this_host ? ' (this host)' : '')));
    // Slowest among two or more: a lone host is compared with nothing.
    if (h.slowest && res.hosts.length >= 2) {
      tr.className = 'slowest';
      name.appendChild(el('span', 'slowest', 'badge'));
    }
    // Stale: facts changed since the newest finished run (see renderHost).
    if (h.last_run && h.stale && !live) name.appendChild(el('span', 'stale', 'badge stale'));
    tr.append(name, el('td', h.group || '—'), el('td', h.last_run_cpus || (h.facts && h.facts.effective_cpus) || ''),
      el('td', live ? 'run #' + live.id + (live.status === 'queued' ? ' queued' : ' in progress') : h.last_run ? age(h.last_run_finished) : 'none'));
    for (const n of names) {
      const p = h.presets.find((x) => x.name === n);
      const td = el('td', p ? ms(p.predicted.ms) + (p.note ? ' *' : '') : '—', 'num');
      if (p && p.note) td.title = p.note;
      tr.appendChild(td);
    }
    return tr;
  }));
  markDecider();
}

async function loadHosts() {
  try {
    const res = await api('/v1/hosts');
    const grew = !hostsGroup && res.group;
    hostsRes = res;
    hostsGroup = res.group || '';
    renderHost();
    renderHosts();
    if (grew && $('answer').dataset.query !== undefined) loadGroup(new URLSearchParams($('answer').dataset.query));
  } catch (e) {
    const dl = $('host');
    dl.replaceChildren();
    row(dl, 'Error', e.message).className = 'error';
    $('hosts').tBodies[0].replaceChildren();
  }
}

// ---- observations ----------------------------------------------------

async function loadObservations() {
  try {
    const res = await api('/v1/observations');
    const has = res.observations.length > 0;
    $('obs-empty').hidden = has;
    $('stacks').hidden = !has;
    $('observations').hidden = !has;
    $('stacks').tBodies[0].replaceChildren(...res.stacks.map((st) => {
      const tr = el('tr');
      const name = el('th', st.stack);
      name.scope = 'row';
      tr.append(name, el('td', String(st.observations), 'num'),
        el('td', st.factor === null ? 'none yet (' + res.min_observations + ' needed)' : '× ' + st.factor.toFixed(2), 'num'));
      return tr;
    }));
    // Services' posts; a stack's probe points show in its tab.
    $('observations').tBodies[0].replaceChildren(...res.observations.filter((o) => o.source !== 'probe').slice(0, 20).map((o) => {
      const tr = el('tr');
      tr.append(el('td', o.stack), el('td', o.variant + ' m=' + o.m_kib + ' t=' + o.t + ' p=' + o.p + (o.k > 1 ? ' k=' + o.k : '')),
        el('td', ms(o.median_ms), 'num'), el('td', o.predicted === null ? '—' : ms(o.predicted.ms), 'num'),
        el('td', o.ratio === null ? '—' : o.ratio.toFixed(2), 'num'), el('td', age(o.created)));
      return tr;
    }));
  } catch (e) {
    $('obs-empty').hidden = false;
    $('obs-empty').textContent = 'Observations: ' + e.message;
  }
}

// ---- start -----------------------------------------------------------

function init() {
  chartDefaults();
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved) $('token').value = saved;
  $('target-range').addEventListener('input', () => {
    const t = rangeToMs(Number($('target-range').value));
    $('target').value = t;
    $('target-range').setAttribute('aria-valuetext', t + ' milliseconds');
    answerSoon();
  });
  $('target').addEventListener('input', () => { syncRange(); answerSoon(); });
  for (const id of ['concurrency', 'memory-max', 'percentile', 'floor', 'objective']) $(id).addEventListener('input', answerSoon);
  $('stack').addEventListener('change', () => {
    stackTab = $('stack').value;
    loadAnswer();
  });
  $('stack-tabs').addEventListener('keydown', tabKeys);
  $('calc').addEventListener('submit', (e) => { e.preventDefault(); loadAnswer(); });
  $('run-form').addEventListener('submit', startRun);
  $('run-cancel').addEventListener('click', cancelRun);
  $('preset-family').addEventListener('change', () => {
    presetFamily = $('preset-family').value;
    renderHosts();
  });
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { chartDefaults(); loadModel(true); });
  syncRange();
  loadAnswer();
  loadModel(true);
  loadRuns();
  loadHosts();
  loadObservations();
  loadDrift();
  setInterval(() => { loadRuns(); loadModel(false); loadObservations(); loadDrift(); }, 5000);
}

init();

// The footer: the version of the pwtuned that serves the page.
api('/healthz').then((h) => { $('version').textContent = 'pwtuned ' + h.version; }).catch(() => {});
