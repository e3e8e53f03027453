#!/usr/bin/env python3
"""bench/startup.py: how long a fresh pwtuned takes to answer (issue 17).

    python3 bench/startup.py --pwtuned build/daemon/pwtuned [--runs N]
        [--baseline OTHER_PWTUNED] [--port PORT]

Each run starts pwtuned on 127.0.0.1 with a new state directory (its
start-up run: libsodium, libargon2, then every stack's probe), asks
GET /v1/recommendation?target_ms=250 every 0.2 s and prints when the first
answer came and when every stack of the catalogue said "probed here" or
"library measured here", and how long each probe took (the run's log).
With --baseline, the two builds take turns, and the medians and their
ratio are printed. The daemon is stopped by its PID; 180 s at most a run.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.request

DONE = ("probed here", "library measured here")
LIMIT_S = 180


def one(pwtuned, port):
    state = tempfile.mkdtemp(prefix="pwtune-startup-")
    log = open(os.path.join(state, "log"), "w")
    t0 = time.monotonic()
    p = subprocess.Popen([pwtuned, "--state-dir", state, "--listen",
                          "127.0.0.1:%d" % port], stdout=log,
                         stderr=subprocess.STDOUT)
    first = every = None
    url = "http://127.0.0.1:%d/v1/recommendation?target_ms=250" % port
    try:
        while time.monotonic() - t0 < LIMIT_S and p.poll() is None:
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    j = json.load(r)
                if first is None:
                    first = time.monotonic() - t0
                hows = [s.get("how") for s in j.get("stacks", [])]
                if len(hows) >= 9 and all(h in DONE for h in hows):
                    every = time.monotonic() - t0
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.2)
    finally:
        p.terminate()
        p.wait()
        log.close()
        text = open(os.path.join(state, "log")).read()
        shutil.rmtree(state, ignore_errors=True)
    m = re.search(r"stacks probed: (.*?); not probed", text)
    return first, every, m.group(1) if m else "(no probe line)"


def fmt(v):
    return "%.1f s" % v if v is not None else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pwtuned", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--port", type=int, default=18931)
    a = ap.parse_args()
    builds = [("this", a.pwtuned)]
    if a.baseline:
        builds.insert(0, ("baseline", a.baseline))
    res = {name: [] for name, _ in builds}
    for i in range(a.runs):
        for name, path in builds:
            first, every, probes = one(path, a.port)
            res[name].append((first, every))
            print("run %d %-8s first answer %s, every stack %s; %s"
                  % (i + 1, name, fmt(first), fmt(every), probes),
                  flush=True)
    med = {}
    for name, rows in res.items():
        firsts = [f for f, _ in rows if f is not None]
        everys = [e for _, e in rows if e is not None]
        med[name] = (statistics.median(firsts) if firsts else None,
                     statistics.median(everys) if everys else None)
        print("%-8s median: first answer %s, every stack %s (%d of %d "
              "runs had every stack)" % (name, fmt(med[name][0]),
                                         fmt(med[name][1]), len(everys),
                                         len(rows)))
    if a.baseline and med["baseline"][1] and med["this"][1]:
        print("every stack, this / baseline: %.2f"
              % (med["this"][1] / med["baseline"][1]))


if __name__ == "__main__":
    main()
