#!/usr/bin/env python3
"""bench/accuracy: do pwtune's answers hold, and use the budget?

One quick run (pwtune bench, timed: the seconds before the first answer),
then for each target (25, 50, 100, 250, 500, 1000 ms) and k = 1 and k = the
effective cores: pwtune recommend --from that run, then the answer measured
independently with pwtune bench (at least 10 latencies at that k). Prints
measured p95 / target (goal: at most 1.00 and at least 0.85) and the
model's leave-one-out error.

In the same run, cryptsetup's own search (cryptsetup benchmark --pbkdf
argon2id --iter-time X, Debian's cryptsetup-bin, which hashes with the same
libargon2): the wall time it took, the parameters it chose, and their time
measured by the same harness (libargon2, k = 1).

Usage: bench/accuracy.py [--pwtune build/cli/pwtune] [--targets 25,50,...]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def measure(pwtune, tmp, m_kib, t, p, k, backend, samples=10):
    """p95 and median (ms) of at least `samples` latencies at k."""
    rounds = max(2, -(-samples // k))
    out = os.path.join(tmp, "m.json")
    run([pwtune, "bench", "--m", str(m_kib), "--t", str(t), "--p", str(p),
         "--concurrency", str(k), "--backend", backend, "--repeats",
         str(rounds), "--json", out, "-q"])
    pt = json.load(open(out))["points"][0]
    if pt["status"] != "ok":
        raise RuntimeError("measuring m=%d t=%d p=%d k=%d: %s" % (
            m_kib, t, p, k, pt["reason"]))
    return pt["stats"]["p95_ms"], pt["stats"]["median_ms"], pt["stats"]["n"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pwtune", default="build/cli/pwtune")
    ap.add_argument("--targets", default="25,50,100,250,500,1000")
    args = ap.parse_args()
    targets = [int(x) for x in args.targets.split(",")]
    tmp = tempfile.mkdtemp(prefix="pwtune-accuracy-")
    quick = os.path.join(tmp, "quick.json")

    t0 = time.monotonic()
    run([args.pwtune, "bench", "--profile", "quick", "--json", quick, "-q"])
    quick_s = time.monotonic() - t0
    cores = json.load(open(quick))["host"]["effective_cpus"]
    print("Quick profile: %.1f s of benchmarking before the first answer; "
          "effective cores %d\n" % (quick_s, cores))

    print("| target ms | k | m KiB | t | p | predicted p95 ms | measured p95 ms "
          "| n | measured / target | model LOO median / worst |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for k in sorted({1, cores}):
        for target in targets:
            rec = subprocess.run(
                [args.pwtune, "recommend", "--target-ms", str(target),
                 "--concurrency", str(k), "--from", quick, "--json"],
                capture_output=True, text=True)
            a = json.loads(rec.stdout)
            p95, med, n = measure(args.pwtune, tmp, a["m_kib"], a["t"], a["p"],
                                  k, a["backend"])
            ratio = p95 / target
            if a["met"]:
                ratios.append(ratio)
            print("| %d | %d | %d | %d | %d | %.1f | %.1f | %d | %.3f%s | "
                  "%.1f %% / %.1f %% |" % (
                      target, k, a["m_kib"], a["t"], a["p"],
                      a["latency"]["predicted_ms"], p95, n, ratio,
                      "" if a["met"] else " (floor: target not met)",
                      100 * a["model"]["loo_median_error"],
                      100 * a["model"]["loo_worst_error"]))
            sys.stdout.flush()
    if ratios:
        print("\nmeasured / target over the answers that met their target: "
              "median %.3f, min %.3f, max %.3f; %d of %d within 0.85 .. 1.00"
              % (statistics.median(ratios), min(ratios), max(ratios),
                 sum(1 for r in ratios if 0.85 <= r <= 1.0), len(ratios)))

    if shutil.which("cryptsetup") is None:
        print("\ncryptsetup not installed (make deps installs cryptsetup-bin)")
        return 0
    print("\ncryptsetup benchmark --pbkdf argon2id --iter-time X, same host, "
          "then its parameters measured (libargon2, k = 1):\n")
    print("| X ms | cryptsetup wall s | m KiB | t | p | measured p95 ms | "
          "measured median / X |")
    print("|---|---|---|---|---|---|---|")
    pat = re.compile(r"argon2id\s+(\d+) iterations, (\d+) memory, "
                     r"(\d+) parallel threads")
    for target in targets:
        t0 = time.monotonic()
        cs = subprocess.run(["cryptsetup", "benchmark", "--pbkdf", "argon2id",
                             "--iter-time", str(target)],
                            capture_output=True, text=True)
        wall = time.monotonic() - t0
        mt = pat.search(cs.stdout)
        if not mt:
            print("| %d | %.1f | ? | ? | ? | cryptsetup said: %s | |" % (
                target, wall, (cs.stdout + cs.stderr).strip()[:80]))
            continue
        t, m, p = (int(x) for x in mt.groups())
        p95, med, n = measure(args.pwtune, tmp, m, t, p, 1, "libargon2")
        print("| %d | %.1f | %d | %d | %d | %.1f | %.3f |" % (
            target, wall, m, t, p, p95, med / target))
        sys.stdout.flush()
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
