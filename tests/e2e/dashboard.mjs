// tests/e2e/dashboard.mjs BASE TOKEN ARTIFACTS [fresh|lone]: the dashboard
// in headless Chromium. Each check prints "ok" or "FAILED"; the exit status
// is the number of failures (capped). Screenshots go to ARTIFACTS. With
// "fresh", the page of a host with an empty store during its start-up
// run; with "lone", a store of this host alone, its run with noisy points
// and a poor model; without, the whole page over a seeded store.
// With "fresh", BASE is a file instead: the browser is launched first,
// FILE.ready written, and then FILE awaited (the daemon's URL and token on
// one line), so that the start-up run starts after the browser did and
// is still running when the page loads, however slow the launch.
import { chromium } from 'playwright-core';
import process from 'node:process';
import path from 'node:path';
import fs from 'node:fs';

let [base, token] = process.argv.slice(2);
const [, , artifacts, mode] = process.argv.slice(2);
let failed = 0;
let passed = 0;
const ok = (name) => { passed++; console.log('ok     ' + name); };
const bad = (name, why) => { failed++; console.log('FAILED ' + name + (why ? ': ' + why : '')); };
const check = (cond, name, why) => (cond ? ok(name) : bad(name, why));

const consoleErrors = [];
const failedRequests = [];
const badResponses = [];
// Responses the test provokes on purpose (the wrong token).
const expected = new Set();

function watchPage(page) {
  // Chromium logs every 4xx as a console error; those are judged by the
  // response check below, against the ones this test provokes.
  page.on('console', (m) => {
    if (m.type() === 'error' && !/^Failed to load resource: the server responded with a status of/.test(m.text())) consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('requestfailed', (r) => failedRequests.push(r.url() + ' ' + (r.failure() || {}).errorText));
  page.on('response', (r) => {
    const key = r.request().method() + ' ' + new URL(r.url()).pathname + ' ' + r.status();
    if (r.status() >= 400 && !expected.has(key)) badResponses.push(key);
  });
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(artifacts, name + '.png'), fullPage: true });
}

// Every chart exists, has data, and has painted pixels on its canvas.
async function chartsDrawn(page) {
  return page.evaluate(() => ['chart-memory', 'chart-concurrency', 'chart-verify'].map((id) => {
    const canvas = document.getElementById(id);
    const chart = window.Chart && window.Chart.getChart(canvas);
    if (!chart) return { id, points: 0, painted: 0 };
    const points = chart.data.datasets.reduce((n, d) => n + d.data.length, 0);
    const ctx = canvas.getContext('2d');
    const img = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < img.length; i += 4) if (img[i] !== 0) painted++;
    return { id, points, painted, w: canvas.width, h: canvas.height };
  }));
}

async function apiJson(page, p) {
  return page.evaluate(async (u) => (await fetch(u)).json(), p);
}

// The API's answer, asked by the test itself (not through the page).
async function get(p) {
  return (await fetch(base + p)).json();
}

const sleep = (n) => new Promise((r) => setTimeout(r, n));

// The page's warnings against the API's model: the poor-model banner
// shown when (and only when) the model is poor, with its reason, in the
// warning colour; the noisy banner and the chart's triangles for the
// points flagged noisy; the memory axis from the smallest size measured.
async function modelWarnings(page, label) {
  // The page asks again now: what it drew came from an earlier question.
  await page.evaluate(() => loadModel(true));
  const model = await get('/v1/model');
  const poor = model.model.quality === 'poor';
  await page.waitForFunction((p) => document.getElementById('model-warning').hidden === !p, poor, { timeout: 10000 }).catch(() => {});
  const w = await page.$eval('#model-warning', (e) => ({ hidden: e.hidden, text: e.textContent, bg: getComputedStyle(e).backgroundColor, fg: getComputedStyle(e).color }));
  const muted = await page.$eval('#model-summary', (e) => getComputedStyle(e).color);
  if (poor) {
    check(!w.hidden && w.text.startsWith('Poor model: ') && w.text.includes(model.model.quality_reason), label + ': a poor model is a visible banner with its reason', JSON.stringify(w));
    check(!/rgba\(0, 0, 0, 0\)|transparent/.test(w.bg) && w.fg !== muted, label + ': the banner is coloured, not grey text', JSON.stringify(w) + ' muted ' + muted);
  } else check(w.hidden, label + ': no poor-model banner for a good model', JSON.stringify(w));
  const noisy = model.points.filter((p) => p.noise && p.noise.noisy);
  const n = await page.$eval('#noisy-warning', (e) => ({ hidden: e.hidden, text: e.textContent }));
  check(noisy.length ? !n.hidden && n.text.startsWith(noisy.length + ' of ' + model.points.length + ' points were flagged noisy') : n.hidden,
    label + ': the noisy banner follows the API (' + noisy.length + ' noisy)', JSON.stringify(n));
  const chart = await page.evaluate(() => {
    const c = window.Chart.getChart(document.getElementById('chart-memory'));
    const tri = c.data.datasets.filter((d) => / measured$/.test(d.label)).reduce((k, d) => k + (Array.isArray(d.pointStyle) ? d.pointStyle.filter((s) => s === 'triangle').length : 0), 0);
    return { tri, min: c.scales.x.min, max: c.scales.x.max };
  });
  const k1 = model.points.filter((p) => p.k === 1);
  check(chart.tri === k1.filter((p) => p.noise && p.noise.noisy).length, label + ': each noisy point is a triangle in the memory chart', JSON.stringify(chart));
  const lo = Math.min(...k1.map((p) => p.m_kib / 1024));
  check(chart.min >= lo / 1.2 && chart.min <= lo, label + ': the memory axis starts at the data (' + lo + ' MiB)', JSON.stringify(chart));
  return { poor, noisy: noisy.length };
}

// A store of this host alone: its name in the host block and the table,
// not marked slowest (nothing to compare with), its noisy points and its
// poor model as warnings, the answer's note about it in colour.
async function loneHost(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  watchPage(page);
  const resp = await page.goto(base + '/', { waitUntil: 'load' });
  check(resp && resp.status() === 200, 'GET / is 200 (a lone host)');
  await page.waitForSelector('#answer-params', { timeout: 15000 });
  await page.waitForSelector('#host-name', { timeout: 10000 });
  const name = await page.textContent('#host-name');
  check(name === 'lone-test-host', 'the host block shows the host\'s name', name);
  check(/lone-test-host/.test(await page.title()), 'the page title names the host', await page.title());
  await page.waitForSelector('#hosts tbody tr', { timeout: 10000 });
  const rows = await page.$$eval('#hosts tbody tr', (r) => r.map((x) => ({ head: x.cells[0].textContent, slowest: x.classList.contains('slowest') || /slowest/.test(x.textContent) })));
  check(rows.length === 1 && rows[0].head.startsWith('lone-test-host'), 'the hosts table names the host', JSON.stringify(rows));
  check(rows.length === 1 && !rows[0].slowest, 'a lone host is not marked slowest', JSON.stringify(rows));
  await page.waitForFunction(() => window.Chart && window.Chart.getChart(document.getElementById('chart-memory')), null, { timeout: 10000 });
  const w = await modelWarnings(page, 'a lone host');
  check(w.poor && w.noisy === 5, 'the lone host\'s model is poor, with 5 noisy points (the API)', JSON.stringify(w));
  const note = await page.$$eval('#answer-params dd', (d) => d.filter((x) => /^the model is poor: /.test(x.textContent)).map((x) => x.className));
  check(note.length === 1 && note[0] === 'warn-text', 'the answer\'s note about the poor model is in the warning colour', JSON.stringify(note));
  await page.waitForSelector('#runs tbody tr', { timeout: 10000 });
  const badge = await page.$$eval('#runs tbody tr .badge.warn', (b) => b.map((x) => x.textContent));
  check(badge.length === 1 && badge[0] === '5 noisy', 'the run\'s noisy points are a warning badge', JSON.stringify(badge));
  await shot(page, 'lone-host');
  await context.close();
}

// What the page says of this host: the host block's Last run and Stale,
// the header's stale flag, and this host's row in the hosts table.
async function hostState(page) {
  return page.evaluate(() => {
    const dd = (term) => {
      const dt = [...document.querySelectorAll('#host dt')].find((x) => x.textContent === term);
      return dt ? dt.nextElementSibling.textContent : '';
    };
    const tr = [...document.querySelectorAll('#hosts tbody tr')].find((r) => /\(this host\)/.test(r.textContent));
    return {
      lastRun: dd('Last run'),
      stale: dd('Stale'),
      badge: document.getElementById('stale-badge').hidden ? '' : document.getElementById('stale-badge').textContent,
      row: tr ? { stale: !!tr.querySelector('.badge.stale'), lastRun: tr.cells[3].textContent } : null,
    };
  });
}

// An empty store, the start-up run measuring this host: while its points
// are measured, and while its answers are verified, the page names the
// run in progress and raises no stale flag (the host did not change);
// when it ends, the page shows the run's age.
async function freshHost(browser) {
  // No model before the points are measured: the page asks all the same.
  expected.add('GET /v1/recommendation 503');
  expected.add('GET /v1/model 503');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  watchPage(page);
  const resp = await page.goto(base + '/', { waitUntil: 'load' });
  check(resp && resp.status() === 200, 'GET / is 200 (a fresh host)');
  let run = null;
  for (let i = 0; i < 100 && !run; i++) {
    run = ((await get('/v1/runs')).runs || []).find((r) => r.status === 'running' && r.progress);
    if (!run) await sleep(100);
  }
  if (!run) {
    bad('the start-up run is running', JSON.stringify(await get('/v1/runs')));
    return;
  }
  const inProgress = new RegExp('run #' + run.id + ' in progress');
  await page.waitForFunction((re) => new RegExp(re).test(document.getElementById('host').textContent), inProgress.source, { timeout: 5000 }).catch(() => {});
  const during = await hostState(page);
  check(inProgress.test(during.lastRun), 'during the start-up run, Last run names the run in progress', JSON.stringify(during));
  check(during.badge === '', 'during the start-up run, no stale flag', during.badge);
  await shot(page, 'fresh-running');

  // The points measured, the answers being verified: status "running".
  let verifying = false;
  for (let i = 0; i < 1200; i++) {
    const r = await get('/v1/runs/' + run.id);
    if (r.status !== 'running') break;
    if (r.progress && r.progress.step === 'verifications') {
      verifying = true;
      break;
    }
    await sleep(100);
  }
  check(verifying, 'the start-up run came to verifying its answers');
  if (verifying) {
    await page.waitForFunction(() => /verifying/.test(document.getElementById('host').textContent), null, { timeout: 4000 }).catch(() => {});
    const v = await hostState(page);
    const still = (await get('/v1/runs/' + run.id)).status === 'running';
    const why = JSON.stringify(v) + (still ? '' : ' (the run ended meanwhile)');
    check(inProgress.test(v.lastRun) && /verifying/.test(v.lastRun), 'while its answers are verified, Last run says so', why);
    check(v.badge === '' && !/^yes/.test(v.stale), 'while its answers are verified, no stale flag', why);
    check(v.row && !v.row.stale && /in progress/.test(v.row.lastRun), 'while its answers are verified, the hosts table names the run, no stale flag', why);
    // The model is in use once the points are measured: the calculator
    // answers then, not only when the run ends.
    const answered = await page.waitForSelector('#answer-params', { timeout: 4000 }).then(() => true, () => false);
    const r = await get('/v1/runs/' + run.id);
    check(answered && r.status === 'running', 'while its answers are verified, the calculator answers', (answered ? 'answered' : await page.textContent('#answer')) + '; run ' + r.status);
    await shot(page, 'fresh-verifying');
    // The banner says what /v1/model says, poor or not (modelWarnings
    // checks it): under the 64 MiB cap that depends on the noisy points,
    // since the libsodium curve, not libargon2's 4 points, decides.
    await page.waitForFunction(() => window.Chart && window.Chart.getChart(document.getElementById('chart-memory')), null, { timeout: 10000 }).catch(() => {});
    await modelWarnings(page, 'a fresh host');
  }

  // The run ends: its age, still no stale flag.
  await page.waitForFunction((id) => new RegExp('Run #' + id + ' (done|failed|cancelled|interrupted)').test(document.getElementById('run-message').textContent), run.id, { timeout: 120000 });
  await page.waitForFunction(() => /Last run\s*#\d+, /.test(document.getElementById('host').textContent), null, { timeout: 10000 }).catch(() => {});
  const end = await hostState(page);
  check(/^#\d+, .* ago$/.test(end.lastRun) && end.stale === 'no' && end.badge === '', 'after the start-up run: its age, no stale flag', JSON.stringify(end));
  await shot(page, 'fresh-done');
  await context.close();
}

function noErrors() {
  check(consoleErrors.length === 0, 'no console error', consoleErrors.join(' | '));
  check(failedRequests.length === 0, 'no failed request', failedRequests.join(' | '));
  check(badResponses.length === 0, 'no unexpected error response', badResponses.join(' | '));
}

function finish() {
  console.log(passed + ' passed, ' + failed + ' failed');
  process.exit(Math.min(failed, 100));
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],
});
if (mode === 'fresh') {
  // The browser is up: the daemon may start now.
  const handshake = base;
  fs.writeFileSync(handshake + '.ready', '');
  let line = '';
  for (let i = 0; i < 600 && !/\s/.test(line.trim()); i++) {
    try {
      line = fs.readFileSync(handshake, 'utf8');
    } catch {
      line = '';
    }
    if (!/\s/.test(line.trim())) await sleep(100);
  }
  [base, token] = line.trim().split(/\s+/);
  if (!base || !token) {
    bad('the daemon of a fresh host started', 'nothing in ' + handshake + ' after 60 s');
    await browser.close();
    finish();
  }
}
if (mode === 'fresh' || mode === 'lone') {
  try {
    await (mode === 'fresh' ? freshHost(browser) : loneHost(browser));
    noErrors();
  } catch (e) {
    bad('the browser test of a ' + mode + ' host ran to its end', e.stack || String(e));
  } finally {
    await browser.close();
  }
  finish();
}
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  // The copy buttons write the clipboard; the test reads it back.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base }).catch(() => {});
  const page = await context.newPage();
  watchPage(page);

  // ---- the page loads ----
  const resp = await page.goto(base + '/', { waitUntil: 'load' });
  check(resp && resp.status() === 200, 'GET / is 200');
  const csp = resp ? resp.headers()['content-security-policy'] || '' : '';
  check(/script-src 'self'/.test(csp) && !/unsafe-inline/.test(csp), 'a strict Content-Security-Policy', csp);
  await page.waitForSelector('#answer-params', { timeout: 15000 });
  await page.waitForFunction(() => document.querySelector('#host dt') && document.querySelector('#host dt').textContent === 'Name', null, { timeout: 10000 });
  const hostText = await page.textContent('#host');
  check(/Memory budget/.test(hostText) && /(MemAvailable|cgroup|configuration)/.test(hostText), 'the host shows its memory budget and what set it', hostText);
  check(/libsodium \d/.test(hostText) && /Fingerprint/.test(hostText), 'the host shows library versions and its fingerprint');
  check(/Last run\s*#\d+, .* ago/.test(hostText), 'the host shows the age of its last run', hostText);
  check(await page.isHidden('#stale-badge'), 'no stale flag for a fresh host');
  // The memory cap takes every size the API takes (any case, K/KB/KiB).
  const sizes = await page.evaluate(() => {
    const el = document.getElementById('memory-max');
    const out = {};
    for (const v of ['64MB', '64mib', '1GiB', '512k', '65536', '64 MiB', 'lots']) {
      el.value = v;
      out[v] = el.validity.valid;
    }
    el.value = '';
    return out;
  });
  check(sizes['64MB'] && sizes['64mib'] && sizes['1GiB'] && sizes['512k'] && sizes['65536'] && !sizes['64 MiB'] && !sizes.lots,
    'the memory cap field takes the sizes the API takes', JSON.stringify(sizes));
  await page.waitForFunction(() => /\d/.test(document.getElementById('version').textContent), null, { timeout: 5000 }).catch(() => {});
  const footer = await page.textContent('#version');
  check(footer === 'pwtuned ' + (await get('/healthz')).version, 'the footer shows the version /healthz gives', footer);
  const self = ((await get('/v1/hosts')).hosts || []).find((h) => h.this_host) || { facts: {} };
  const shownName = await page.textContent('#host-name');
  check(!!self.facts.hostname && shownName === self.facts.hostname, 'the host block shows the host\'s name', shownName + ' vs ' + self.facts.hostname);

  // ---- the calculator matches the API, and follows the slider ----
  const q1 = await page.getAttribute('#answer', 'data-query');
  const shown1 = await page.textContent('#phc-prefix');
  const api1 = await apiJson(page, '/v1/recommendation?' + q1);
  check(api1.phc_prefix === shown1, 'the answer shown is the API\'s', shown1 + ' vs ' + api1.phc_prefix);
  check(/target_ms=250/.test(q1), 'the first question is 250 ms', q1);
  // What the background checks measured: not yet (the test's daemon checks
  // nothing: check_budget 0), said in words; no drift banner.
  const measured = await page.textContent('#answer-measured').catch(() => '');
  check(api1.verified === null && /not yet: predicted only/.test(measured), 'the answer says it was not measured yet (verified: null)', measured);
  check(await page.isHidden('#drift-warning') && !(await get('/readyz')).drift.detected, 'no drift banner while /readyz says none');
  await page.focus('#target-range');
  await page.keyboard.press('PageDown');
  await page.waitForFunction((q) => document.getElementById('answer').dataset.query !== q, q1, { timeout: 10000 });
  const q2 = await page.getAttribute('#answer', 'data-query');
  const target2 = Number(await page.inputValue('#target'));
  check(target2 < 250 && target2 >= 10, 'the slider moves the target down a log scale', String(target2));
  await page.waitForSelector('#phc-prefix');
  const shown2 = await page.textContent('#phc-prefix');
  const api2 = await apiJson(page, '/v1/recommendation?' + q2);
  check(api2.phc_prefix === shown2, 'after the slider, the answer is still the API\'s', shown2 + ' vs ' + api2.phc_prefix);
  check(shown2 !== shown1, 'the answer changed with the slider', shown1 + ' -> ' + shown2);
  const pred = await page.textContent('#predicted');
  check(pred.includes(api2.latency.predicted_ms >= 100 ? api2.latency.predicted_ms.toFixed(0) : api2.latency.predicted_ms.toFixed(1)), 'the predicted latency is the API\'s', pred);

  // ---- each stack's answer as a tab, its copy button, the selector ----
  const tabs = await page.$$eval('#stack-tabs [role=tab]', (t) => t.map((x) => [x.dataset.stack, x.getAttribute('aria-selected')]));
  check(api2.stacks && tabs.length === api2.stacks.length && tabs.every((t, i) => t[0] === api2.stacks[i].name), 'one tab per stack of the answer', JSON.stringify(tabs));
  check(tabs.filter((t) => t[1] === 'true').map((t) => t[0]).join() === api2.for, 'the tab of the stack the answer holds for is selected', api2.for + ' ' + JSON.stringify(tabs));
  const forText = await page.textContent('#answer-for');
  check(forText.startsWith(api2.for + ' (library measured here)'), 'the answer says which stack it holds for and how that was measured', forText);
  const phpApi = (api2.stacks || []).find((x) => x.name === 'php') || {};
  await page.click('#stack-tab-php');
  await page.waitForFunction(() => document.getElementById('stack-tab-php').getAttribute('aria-selected') === 'true', null, { timeout: 5000 });
  const phpSnip = await page.textContent('#stack-snippet');
  check(phpSnip === phpApi.snippet && phpSnip.includes("'memory_cost' => " + phpApi.m_kib + ','), 'the php tab shows php\'s snippet, with its own m', phpSnip.slice(0, 300));
  const phpHow = await page.textContent('#stack-how');
  check(phpHow.includes(phpApi.how), 'the php tab says how php was measured', phpHow);
  const phpNotes = await page.$$eval('#stack-panel .stack-note', (r) => r.map((x) => x.textContent));
  check(Array.isArray(phpApi.notes) && phpApi.notes.length > 0 && phpNotes.length === phpApi.notes.length && phpApi.notes.every((n, i) => phpNotes[i].includes(n)), 'the php tab shows php\'s own notes', JSON.stringify(phpNotes).slice(0, 300) + ' vs ' + JSON.stringify(phpApi.notes).slice(0, 300));
  // php's probe hashed through the curve's own libargon2 (dashboard.sh
  // stored it so): its correction is shown, and said not applied.
  const phpCorr = await page.textContent('#stack-correction').catch(() => '');
  check(phpApi.correction && phpApi.correction.applied === false && phpApi.correction.shares_library === '/usr/lib/x86_64-linux-gnu/libargon2.so.1' &&
    phpCorr.includes('(not applied: it hashes through /usr/lib/x86_64-linux-gnu/libargon2.so.1, the library file this host\'s curve measured)'),
    'the php tab shows its probe\'s correction, not applied: it hashes through the curve\'s own library', phpCorr + ' ' + JSON.stringify(phpApi.correction));
  check(phpApi.answered_as === 'libargon2' && phpHow.includes('probed here, answered as libargon2 (its runtime hashes through libargon2\'s own file here'),
    'the php tab says php is answered as libargon2, whose file it hashes through', phpHow + ' ' + JSON.stringify(phpApi.answered_as));
  await page.click('#stack-copy');
  await page.waitForFunction(() => document.getElementById('stack-copy').textContent !== 'Copy', null, { timeout: 5000 });
  const copied = await page.evaluate(async () => {
    if (document.getElementById('stack-copy').textContent === 'Copied') return { how: 'the clipboard', text: await navigator.clipboard.readText() };
    return { how: 'the selection', text: String(window.getSelection()) };
  });
  check(copied.text === phpApi.snippet, 'the copy button puts the php snippet on ' + copied.how, copied.text.slice(0, 200));
  const sodiumApi = (api2.stacks || []).find((x) => x.name === 'php-sodium') || {};
  await page.focus('#stack-tab-php');
  await page.keyboard.press('ArrowRight');
  const sodiumSnip = await page.textContent('#stack-snippet');
  check(sodiumSnip === sodiumApi.snippet && sodiumSnip.includes(sodiumApi.m_kib + ' * 1024'), 'the arrow key moves to the next tab (php-sodium), its snippet with its own m', sodiumSnip.slice(0, 300));
  await page.selectOption('#stack', 'php');
  await page.waitForFunction(() => /(^|&)stack=php(&|$)/.test(document.getElementById('answer').dataset.query || ''), null, { timeout: 10000 });
  const q4 = await page.getAttribute('#answer', 'data-query');
  const api4 = await apiJson(page, '/v1/recommendation?' + q4);
  const shown4 = await page.textContent('#phc-prefix');
  check(api4.for === 'php' && shown4 === api4.phc_prefix && api4.m_kib === phpApi.m_kib, 'the stack selector asks with stack=php and shows php\'s answer', shown4 + ' vs ' + api4.phc_prefix + ', m ' + api4.m_kib + ' vs ' + phpApi.m_kib);
  check((await page.textContent('#answer-for')).startsWith('php ('), 'the answer says it holds for php', await page.textContent('#answer-for'));
  check(await page.getAttribute('#stack-tab-php', 'aria-selected') === 'true', 'the php tab is selected with it');
  await shot(page, 'desktop-stack-php');
  await page.selectOption('#stack', '');
  await page.waitForFunction(() => !/stack=/.test(document.getElementById('answer').dataset.query || ''), null, { timeout: 10000 });
  check((await page.textContent('#phc-prefix')) === shown2, 'back to the default stack, the default answer', await page.textContent('#phc-prefix'));
  // Typing a number moves the slider the other way.
  await page.fill('#target', '1000');
  const r1000 = Number(await page.inputValue('#target-range'));
  check(r1000 > 800 && r1000 < 900, 'the number field moves the slider', String(r1000));
  await page.fill('#concurrency', '2');
  await page.waitForFunction(() => /concurrency=2/.test(document.getElementById('answer').dataset.query || ''), null, { timeout: 10000 });
  await page.waitForFunction(() => document.getElementById('answer').textContent.length > 0);
  const q3 = await page.getAttribute('#answer', 'data-query');
  const api3 = await page.evaluate(async (u) => { const r = await fetch(u); return { status: r.status, body: await r.json() }; }, '/v1/recommendation?' + q3);
  const shown3 = await page.textContent('#answer');
  check(api3.status === 200 ? shown3.includes(api3.body.phc_prefix) : shown3.includes(api3.body.detail), 'the concurrency field asks the API again', shown3.slice(0, 200));

  // ---- the charts ----
  await page.waitForFunction(() => window.Chart && ['chart-memory', 'chart-concurrency', 'chart-verify'].every((id) => window.Chart.getChart(document.getElementById(id))), null, { timeout: 10000 });
  for (const c of await chartsDrawn(page)) {
    check(c.points > 0 && c.painted > 1000, 'chart ' + c.id + ' has drawn', JSON.stringify(c));
  }
  const memSets = await page.evaluate(() => window.Chart.getChart(document.getElementById('chart-memory')).data.datasets.map((d) => d.label));
  check(memSets.some((l) => / model$/.test(l)) && memSets.some((l) => / measured$/.test(l)), 'the memory chart has the model\'s lines and the measured points', memSets.join(', '));
  const scales = await page.evaluate(() => { const c = window.Chart.getChart(document.getElementById('chart-memory')); return [c.scales.x.type, c.scales.y.type]; });
  check(scales[0] === 'logarithmic' && scales[1] === 'logarithmic', 'time against memory on log scales', scales.join(','));
  await modelWarnings(page, 'a seeded host');
  // The argon2i grid stored beside the run: its curve named, with its run.
  const summary = await page.textContent('#model-summary');
  check(/^Model from run #\d+ \(.*\), with libsodium argon2i p = 1 from run #\d+, \d+ points measured/.test(summary),
    'the model summary names the grid\'s curve and its run', summary);
  await shot(page, 'desktop-light');

  // ---- the hosts table ----
  const hostRows = await page.$$eval('#hosts tbody tr', (rows) => rows.map((r) => ({ text: r.textContent, slowest: r.classList.contains('slowest') })));
  check(hostRows.length === 2, 'the hosts table lists both hosts', String(hostRows.length));
  const slow = hostRows.filter((r) => r.slowest);
  check(slow.length === 1 && /Slow Test CPU/.test(slow[0].text), 'the slowest host is highlighted', JSON.stringify(slow));
  // The group: the slow host decides the answer that holds on both. At
  // one hash at a time: two at once on this host's one CPU, measured while
  // other work runs, can come out slower than the imported host.
  await page.fill('#concurrency', '1');
  await page.waitForFunction(() => /concurrency=1/.test(document.getElementById('answer').dataset.query || ''), null, { timeout: 10000 });
  const groupWant = await page.evaluate(async (q) => (await fetch('/v1/recommendation?' + q + '&scope=group')).json(), await page.$eval('#answer', (o) => o.dataset.query));
  await page.waitForFunction((w) => { const p = document.getElementById('group-answer'); return !p.hidden && p.textContent.includes(w) && document.querySelector('#hosts tr.decider'); }, groupWant.phc_prefix + ' holds on every one; decided by ' + (groupWant.decided_by ? groupWant.decided_by.cpu_model : ''), { timeout: 10000 }).catch(() => {});
  const group = await page.$eval('#group-answer', (p) => ({ text: p.textContent, hidden: p.hidden }));
  check(!group.hidden && /Group web, 2 hosts/.test(group.text) && /decided by Slow Test CPU 55555555/.test(group.text), 'the group answer names the deciding host', group.text);
  const deciders = await page.$$eval('#hosts tbody tr.decider', (rows) => rows.map((r) => r.textContent));
  check(deciders.length === 1 && /Slow Test CPU/.test(deciders[0]) && /decides web/.test(deciders[0]), 'the deciding host is marked in the table', JSON.stringify(deciders));
  const groupPhc = (group.text.match(/\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+/) || [''])[0];
  const apiGroup = await page.evaluate(async (q) => (await (await fetch('/v1/recommendation?' + q + '&scope=group')).json()).phc_prefix, await page.$eval('#answer', (o) => o.dataset.query));
  check(groupPhc !== '' && groupPhc === apiGroup, 'the group answer on the page is the API\'s', groupPhc + ' vs ' + apiGroup);
  // Observations: the stack with its correction, predicted against observed.
  const stacks = await page.$$eval('#stacks tbody tr', (rows) => rows.map((r) => Array.from(r.cells).map((c) => c.textContent)));
  // (php's probe points are observations of the run too: a row of 0
  // services' observations.)
  const posted = stacks.find((r) => r[0] === 'php-8.2-libargon2');
  check(posted && posted[1] === '5' && /^× \d+\.\d\d$/.test(posted[2]) && stacks.every((r) => r === posted || (r[0] === 'php' && r[1] === '0')), 'the observations table shows the stack and its correction', JSON.stringify(stacks));
  const obsRows = await page.$$eval('#observations tbody tr', (rows) => rows.map((r) => Array.from(r.cells).map((c) => c.textContent)));
  check(obsRows.length === 5 && obsRows.every((r) => /m=16384 t=3/.test(r[1]) && /ms/.test(r[2]) && /ms/.test(r[3]) && /^\d+\.\d\d$/.test(r[4])), 'each observation: observed against predicted', JSON.stringify(obsRows[0]));
  // At 1280 px every column shows: the table is no wider than its box.
  const heads = () => page.$$eval('#hosts thead th', (t) => t.map((x) => x.textContent));
  const fits = () => page.$eval('#hosts', (t) => {
    const box = t.parentElement;
    return { table: Math.ceil(t.getBoundingClientRect().width), box: box.clientWidth, scroll: box.scrollWidth, right: Math.ceil(t.getBoundingClientRect().right), page: document.documentElement.clientWidth };
  });
  const fitting = (f) => f.scroll <= f.box && f.table <= f.box && f.right <= f.page;
  const heads0 = await heads();
  check(heads0.includes('OWASP-2'), 'the hosts table shows the OWASP presets first', heads0.join(','));
  const fit = await fits();
  check(fitting(fit), 'the hosts table fits the page at 1280 px', JSON.stringify(fit));
  await page.locator('section[aria-labelledby="hosts-h"]').screenshot({ path: path.join(artifacts, 'hosts-1280.png') });
  // Every preset the API predicts is in the table, a family at a time,
  // and every family fits.
  const apiPresets = [...new Set((await apiJson(page, '/v1/hosts')).hosts.flatMap((h) => h.presets.map((p) => p.name)))];
  const shown = new Set(heads0);
  const tooWide = [];
  const families = await page.$$eval('#preset-family option', (o) => o.map((x) => x.value));
  for (const f of families) {
    await page.selectOption('#preset-family', f);
    for (const h of await heads()) shown.add(h);
    const ff = await fits();
    if (!fitting(ff)) tooWide.push(f + ' ' + JSON.stringify(ff));
  }
  const missing = apiPresets.filter((n) => !shown.has(n));
  check(apiPresets.includes('Argon2idFast') && missing.length === 0, 'every preset of the API is in the hosts table', 'missing: ' + missing.join(','));
  check(tooWide.length === 0, 'the hosts table fits the page with every family of presets', tooWide.join('; '));
  if (families.includes('OWASP')) await page.selectOption('#preset-family', 'OWASP');

  // ---- runs: a wrong token, then the right one ----
  expected.add('POST /v1/runs 401');
  await page.fill('#token', 'not-the-token');
  await page.click('#run-start');
  await page.waitForFunction(() => /401/.test(document.getElementById('run-message').textContent), null, { timeout: 10000 });
  const msg401 = await page.textContent('#run-message');
  check(/not accepted/.test(msg401), 'a wrong token shows the error', msg401);
  check(await page.evaluate(() => sessionStorage.getItem('pwtune.token')) === null, 'a refused token is not kept');

  await page.fill('#token', token);
  await page.click('#run-start');
  await page.waitForFunction(() => /started/.test(document.getElementById('run-message').textContent), null, { timeout: 10000 });
  check(await page.evaluate((t) => sessionStorage.getItem('pwtune.token') === t && localStorage.length === 0, token), 'the token is kept in sessionStorage only');
  await page.waitForSelector('#run-live', { state: 'visible', timeout: 10000 });
  // The total comes with the run's first status: the live block can show
  // a moment before it (the check below says what it was after 10 s).
  await page.waitForFunction(() => Number(document.getElementById('run-progress').getAttribute('max')) > 1, null, { timeout: 10000 }).catch(() => {});
  const max = Number(await page.getAttribute('#run-progress', 'max'));
  check(max > 1, 'the progress bar knows how many points', String(max));
  let sawProgress = false;
  const until = Date.now() + 180000;
  while (Date.now() < until) {
    const v = Number(await page.evaluate(() => document.getElementById('run-progress').value));
    if (v > 0) sawProgress = true;
    if (await page.isHidden('#run-live')) break;
    await page.waitForTimeout(250);
  }
  const endMsg = await page.textContent('#run-message');
  check(sawProgress, 'the progress bar moved');
  check(/done/.test(endMsg), 'the run finished', endMsg);
  await page.waitForFunction(() => document.querySelector('#runs tbody tr') && document.querySelector('#runs tbody tr').dataset.status === 'done', null, { timeout: 10000 });
  const first = await page.$$eval('#runs tbody tr:first-child td', (t) => t.map((x) => x.textContent));
  check(first[1] === 'done' && first[2] === 'api', 'the history shows the new run', first.join(' | '));
  // Start again (the cool-down is 0 here) and cancel from the page.
  const finalMsg = (id) => new RegExp('Run #' + id + ' (done|cancelled|failed|interrupted)');
  await page.click('#run-start');
  await page.waitForFunction(() => /started|409|429/.test(document.getElementById('run-message').textContent), null, { timeout: 10000 });
  const started = (await page.textContent('#run-message')).match(/Run #(\d+) started/);
  if (started) {
    await page.waitForSelector('#run-cancel', { state: 'visible' });
    await page.click('#run-cancel');
    await page.waitForFunction((re) => new RegExp(re).test(document.getElementById('run-message').textContent), finalMsg(started[1]).source, { timeout: 60000 });
    const m = await page.textContent('#run-message');
    check(/cancelled\./.test(m), 'a running run can be cancelled from the page', m);
  } else bad('a second run started', await page.textContent('#run-message'));
  // A run started elsewhere: the page's start is a 409, explained, and
  // the page picks the running run up, with its cancel button.
  expected.add('POST /v1/runs 409');
  const other = await page.evaluate(async (t) => {
    const r = await fetch('/v1/runs', { method: 'POST', headers: { Authorization: 'Bearer ' + t, 'Content-Type': 'application/json' }, body: '{"profile":"quick"}' });
    return { status: r.status, body: await r.json() };
  }, token);
  check(other.status === 202, 'a run started with curl-like code', JSON.stringify(other));
  await page.click('#run-start');
  await page.waitForFunction(() => /409/.test(document.getElementById('run-message').textContent), null, { timeout: 10000 });
  check(/already queued or running/.test(await page.textContent('#run-message')), 'a 409 is explained');
  await page.waitForSelector('#run-cancel', { state: 'visible', timeout: 10000 });
  await page.click('#run-cancel');
  await page.waitForFunction((re) => new RegExp(re).test(document.getElementById('run-message').textContent), finalMsg(other.body.id).source, { timeout: 60000 });
  check(/cancelled\./.test(await page.textContent('#run-message')), 'the other run is cancelled from the page', await page.textContent('#run-message'));
  // The verified answers of the new run reach the last chart.
  await page.evaluate(() => loadModel(true)).catch(() => {});
  await shot(page, 'desktop-after-run');

  // ---- accessibility: labels, keyboard ----
  const unlabelled = await page.$$eval('input, select, button, progress', (els) => els.filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim()).map((e) => e.id || e.outerHTML.slice(0, 60)));
  check(unlabelled.length === 0, 'every control has a label', unlabelled.join(', '));
  const canvases = await page.$$eval('canvas', (c) => c.filter((x) => !x.getAttribute('aria-label')).length);
  check(canvases === 0, 'every chart has a text alternative');
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#answer-params', { timeout: 15000 });
  await page.keyboard.press('Tab');
  const firstFocus = await page.evaluate(() => document.activeElement.className);
  check(firstFocus === 'skip', 'the first Tab reaches the skip link', firstFocus);
  await page.keyboard.press('Tab');
  const secondFocus = await page.evaluate(() => document.activeElement.id);
  check(secondFocus === 'target-range', 'the next Tab reaches the slider', secondFocus);
  const before = Number(await page.inputValue('#target'));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const after = Number(await page.inputValue('#target'));
  check(after > before, 'the arrow keys move the slider', before + ' -> ' + after);

  // ---- a phone, light and dark ----
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, colorScheme: 'dark' });
  const pp = await phone.newPage();
  watchPage(pp);
  await pp.goto(base + '/', { waitUntil: 'load' });
  await pp.waitForSelector('#answer-params', { timeout: 15000 });
  await pp.waitForFunction(() => window.Chart && window.Chart.getChart(document.getElementById('chart-memory')), null, { timeout: 10000 });
  const overflow = await pp.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 1, 'the layout holds at phone width (no sideways scrolling)', overflow + ' px too wide');
  const narrow = await pp.evaluate(() => [...document.querySelectorAll('main > section')].every((s) => s.getBoundingClientRect().right <= window.innerWidth + 1));
  check(narrow, 'every section fits the phone\'s width');
  const bg = await pp.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const dark = (bg.match(/\d+/g) || [255]).slice(0, 3).every((v) => Number(v) < 80);
  check(dark, 'dark when the system is dark', bg);
  await shot(pp, 'phone-dark');
  await phone.close();

  noErrors();
} catch (e) {
  bad('the browser test ran to its end', e.stack || String(e));
} finally {
  await browser.close();
}
finish();
