#!/usr/bin/env python3
"""L7 soak: a real pwtuned on 127.0.0.1 under steady reads and periodic
re-benchmarks, sampled every few seconds.

  bench/soak.py --pwtuned build/daemon/pwtuned [--duration 7200]
                [--rebench 300] [--out DIR]

Reads: GET /v1/recommendation at 50/s on one keep-alive connection, the
memory cap cycling through 8, 19, 31, 46 and 256 MiB. A re-benchmark
(POST /v1/runs, the quick profile, memory_max 256 MiB) every --rebench
seconds, the first at once. Every --sample seconds: RSS, open descriptors
and threads of pwtuned (between runs: benchmark children add descriptors
while they run), and the size of the store's WAL.

Writes DIR/soak.csv and, with gnuplot, DIR/soak.png. Passes (exit 0)
when: RSS in the second half <= 1.10 x the first half (peaks), the
descriptors and threads between runs stay within +-2, the WAL stays
<= 8 MiB, no read failed, and every run ended done.
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

CAPS = ["8MiB", "19MiB", "31MiB", "46MiB", "256MiB"]


def proc_stats(pid):
    rss = 0
    threads = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    fds = len(os.listdir("/proc/%d/fd" % pid))
    return rss, fds, threads


class Reader(threading.Thread):
    """GET /v1/recommendation at a steady rate on one connection."""

    def __init__(self, port, rate):
        super().__init__(daemon=True)
        self.port, self.rate = port, rate
        self.ok = self.failed = 0
        self.stop = threading.Event()

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        i = 0
        next_t = time.monotonic()
        while not self.stop.is_set():
            cap = CAPS[i % len(CAPS)]
            i += 1
            try:
                conn.request("GET", "/v1/recommendation?target_ms=250&memory_max=" + cap)
                r = conn.getresponse()
                r.read()
                if r.status in (200, 422):
                    self.ok += 1
                else:
                    self.failed += 1
            except (OSError, http.client.HTTPException):
                self.failed += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            next_t += 1.0 / self.rate
            delay = next_t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            else:
                next_t = time.monotonic()


def call(port, method, path, token=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    conn.request(method, path, body=b'{"profile": "quick"}' if method == "POST" else None,
                 headers=headers)
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, body


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pwtuned", required=True)
    ap.add_argument("--duration", type=float, default=7200)
    ap.add_argument("--rebench", type=float, default=300)
    ap.add_argument("--sample", type=float, default=5)
    ap.add_argument("--rate", type=float, default=50)
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    state = tempfile.mkdtemp(prefix="pwtune-soak-")
    log = open(os.path.join(a.out, "soak-pwtuned.log"), "w")
    env = dict(os.environ, PWTUNED_STARTUP_PROFILE="none", PWTUNED_COOLDOWN="0",
               PWTUNED_CHECK_BUDGET=os.environ.get("PWTUNED_CHECK_BUDGET", "0"),
               PWTUNED_MEMORY_MAX="256MiB", PWTUNED_VERIFY_TARGETS="100,250")
    p = subprocess.Popen([a.pwtuned, "--state-dir", state, "--listen", "127.0.0.1:0"],
                         stdout=log, stderr=subprocess.STDOUT, env=env)
    port = None
    for _ in range(200):
        time.sleep(0.05)
        with open(log.name) as f:
            for line in f:
                if "listening on 127.0.0.1:" in line:
                    port = int(line.rsplit(":", 1)[1])
        if port:
            break
    if not port:
        p.kill()
        sys.exit("pwtuned did not start")
    token = open(os.path.join(state, "token")).read().strip()
    wal = os.path.join(state, "pwtune.db-wal")
    rows, runs = [], []
    reader = None
    t0 = time.monotonic()
    last_run = -1e9
    try:
        while time.monotonic() - t0 < a.duration:
            now = time.monotonic() - t0
            if now - last_run >= a.rebench:
                st, body = call(port, "POST", "/v1/runs", token)
                if st == 202:
                    runs.append(json.loads(body)["id"])
                    last_run = now
            if reader is None:
                # After the first run has a model to answer from.
                st, _ = call(port, "GET", "/readyz")
                if st == 200:
                    reader = Reader(port, a.rate)
                    reader.start()
            st, body = call(port, "GET", "/metrics")
            busy = b"\npwtuned_benchmark_in_progress 1\n" in body
            rss, fds, threads = proc_stats(p.pid)
            walsize = os.path.getsize(wal) if os.path.exists(wal) else 0
            rows.append((round(now, 1), rss, fds, threads, walsize, int(busy),
                         reader.ok if reader else 0, reader.failed if reader else 0))
            time.sleep(a.sample)
        # Let the last run end before stopping.
        for _ in range(240):
            st, body = call(port, "GET", "/metrics")
            if b"\npwtuned_benchmark_in_progress 0\n" in body:
                break
            time.sleep(0.5)
    finally:
        if reader:
            reader.stop.set()
            reader.join(5)
        p.send_signal(signal.SIGTERM)
        rc = p.wait(30)
    # The runs' ends, from the store (the daemon is stopped).
    statuses = {}
    db = sqlite3.connect(os.path.join(state, "pwtune.db"))
    for rid in runs:
        r = db.execute("SELECT status FROM runs WHERE id = ?", (rid,)).fetchone()
        statuses[rid] = r[0] if r else "missing"
    db.close()

    csv = os.path.join(a.out, "soak.csv")
    with open(csv, "w") as f:
        f.write("seconds,rss_kib,fds,threads,wal_bytes,benchmark,reads_ok,reads_failed\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")
    if shutil.which("gnuplot"):
        png = os.path.join(a.out, "soak.png")
        script = f"""
set terminal png size 1000,700
set output '{png}'
set datafile separator ','
set key autotitle columnhead
set multiplot layout 3,1 title 'pwtuned soak: {a.duration:.0f} s, reads at {a.rate:.0f}/s, a run every {a.rebench:.0f} s'
set ylabel 'RSS (MiB)'
plot '{csv}' using 1:($2/1024) with lines title 'RSS', '' using 1:($6*10) with steps title 'benchmark (x10)'
set ylabel 'count'
plot '{csv}' using 1:3 with lines title 'fds', '' using 1:4 with lines title 'threads'
set ylabel 'WAL (KiB)'
set xlabel 'seconds'
plot '{csv}' using 1:($5/1024) with lines title 'WAL'
unset multiplot
"""
        subprocess.run(["gnuplot"], input=script.encode(), check=False)

    half = a.duration / 2
    first = [r[1] for r in rows if r[0] < half]
    second = [r[1] for r in rows if r[0] >= half]
    idle = [r for r in rows[2:] if not r[5]]
    fds = [r[2] for r in idle]
    thr = [r[3] for r in idle]
    walmax = max(r[4] for r in rows) if rows else 0
    reads_ok = rows[-1][6] if rows else 0
    reads_failed = rows[-1][7] if rows else 0
    checks = [
        ("RSS second half <= 1.10 x first half (peaks: %d KiB, %d KiB)" % (max(first or [0]), max(second or [0])),
         first and second and max(second) <= 1.10 * max(first)),
        ("descriptors between runs within +-2, a range of 4 at most (%s..%s)" % (min(fds or [0]), max(fds or [0])),
         fds and max(fds) - min(fds) <= 4),
        ("threads between runs within +-2, a range of 4 at most (%s..%s)" % (min(thr or [0]), max(thr or [0])),
         thr and max(thr) - min(thr) <= 4),
        ("WAL <= 8 MiB (%d KiB at most)" % (walmax // 1024), walmax <= 8 << 20),
        ("%d reads, %d failed" % (reads_ok + reads_failed, reads_failed),
         reads_ok > 0 and reads_failed == 0),
        ("%d runs, all done (%s)" % (len(runs), ", ".join(sorted(set(statuses.values())))),
         runs and all(s == "done" for s in statuses.values())),
        ("pwtuned exited 0 on SIGTERM (%d)" % rc, rc == 0),
    ]
    failed = 0
    for name, good in checks:
        print(("ok     " if good else "FAILED ") + name)
        failed += 0 if good else 1
    print("CSV: %s%s" % (csv, ", PNG: " + os.path.join(a.out, "soak.png") if shutil.which("gnuplot") else ""))
    shutil.rmtree(state, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
