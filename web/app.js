// pwtune's page: everything it shows comes from the API; it computes
// nothing of its own.
'use strict';

const $ = (id) => document.getElementById(id);

function text(el, value) {
  el.textContent = value;
  return el;
}

async function getJSON(path) {
  const r = await fetch(path, { headers: { Accept: 'application/json' } });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) {
    throw new Error(body.detail || ('HTTP ' + r.status));
  }
  return body;
}

function row(dl, term, value) {
  dl.appendChild(text(document.createElement('dt'), term));
  dl.appendChild(text(document.createElement('dd'), value));
}

async function loadHost() {
  const dl = $('host');
  try {
    const hosts = (await getJSON('/v1/hosts')).hosts;
    const h = hosts.find((x) => x.this_host) || hosts[0];
    dl.replaceChildren();
    if (!h) {
      row(dl, 'Status', 'no measurements yet');
      return;
    }
    row(dl, 'CPU', h.facts.cpu_model + ' (' + h.facts.online_cpus + ' online, ' + h.facts.effective_cpus + ' effective)');
    row(dl, 'Memory', Math.round(h.facts.mem_total / 1048576) + ' MiB');
    row(dl, 'Libraries', 'libsodium ' + h.facts.libsodium_version + ', libargon2 ' + h.facts.libargon2_version);
    row(dl, 'Last run', h.last_run ? String(h.last_run) : 'none');
    row(dl, 'Stale', h.stale ? 'yes: the host changed since the last run' : 'no');
  } catch (e) {
    dl.replaceChildren();
    row(dl, 'Error', e.message).className = 'error';
  }
}

async function loadAnswer() {
  const out = $('answer');
  const q = new URLSearchParams(new FormData($('calc')));
  try {
    const a = await getJSON('/v1/recommendation?' + q.toString());
    out.replaceChildren();
    const dl = document.createElement('dl');
    row(dl, 'Parameters', 'm = ' + a.m_kib + ' KiB, t = ' + a.t + ', p = ' + a.p);
    const code = document.createElement('code');
    code.textContent = a.phc_prefix;
    dl.appendChild(text(document.createElement('dt'), 'PHC prefix'));
    const dd = document.createElement('dd');
    dd.appendChild(code);
    dl.appendChild(dd);
    row(dl, 'Predicted', a.latency.predicted_ms.toFixed(1) + ' ms at p' + a.latency.percentile + ' with ' + a.latency.concurrency + ' at once');
    row(dl, 'Capacity', a.capacity_per_s.toFixed(1) + ' hashes per second');
    row(dl, 'Floor', a.floor.name + (a.floor.decided ? ' (decided the answer)' : ''));
    row(dl, 'Attacker', Math.round(a.attacker.gpu_guesses_per_s) + ' guesses per second on one GPU');
    out.appendChild(dl);
  } catch (e) {
    text(out, e.message).className = 'error';
  }
}

async function loadRuns() {
  const body = $('runs').tBodies[0];
  try {
    const runs = (await getJSON('/v1/runs')).runs;
    body.replaceChildren(...runs.map((r) => {
      const tr = document.createElement('tr');
      const progress = r.progress ? r.progress.done + '/' + r.progress.total : r.points_done + '/' + r.points_total;
      for (const v of [r.id, r.status, r.trigger, r.profile, progress, r.created]) {
        tr.appendChild(text(document.createElement('td'), String(v)));
      }
      return tr;
    }));
  } catch (e) {
    body.replaceChildren();
  }
}

$('calc').addEventListener('input', loadAnswer);
loadHost();
loadAnswer();
loadRuns();
setInterval(loadRuns, 5000);
