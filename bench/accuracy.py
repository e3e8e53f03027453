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

With --cold (issue 18's "one target, fast and right"): for 100, 250 and
1000 ms, `pwtune recommend --target-ms X` from cold (no store, no file: the
measured search) against `cryptsetup benchmark --pbkdf argon2id --iter-time
X`, taking turns, --rounds times: each one's wall time, and its answer timed
outside pwtune by bench/stacks/time.c (15 hashes after 3 warm-ups, in the
library each one hashes with: libsodium for pwtune, libargon2 for
cryptsetup), p95 at the nearest rank over the target.

Usage: bench/accuracy.py [--pwtune build/cli/pwtune] [--targets 25,50,...]
       bench/accuracy.py --cold [--targets 100,250,1000] [--rounds 3]
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timer as timer_mod  # noqa: E402  (bench/timer.py)


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


def cold(args, targets):
    """pwtune recommend from cold against cryptsetup's benchmark."""
    tmp = tempfile.mkdtemp(prefix="pwtune-accuracy-")
    timer = timer_mod.build(tmp)
    env = dict(os.environ)
    env.pop("PWTUNE_DB", None)
    have_cs = shutil.which("cryptsetup") is not None
    pat = re.compile(r"argon2id\s+(\d+) iterations, (\d+) memory, "
                     r"(\d+) parallel threads")
    print("| X ms | round | pwtune wall s | m KiB | t | hashes | own p95 ms "
          "| p95 / X (time.c, libsodium) | cryptsetup wall s | m KiB | t | p "
          "| p95 / X (time.c, libargon2) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = {}
    for rnd in range(1, args.rounds + 1):
        for x in targets:
            t0 = time.monotonic()
            rec = subprocess.run([args.pwtune, "recommend", "--target-ms",
                                  str(x), "--json"], capture_output=True,
                                 text=True, env=env, cwd=tmp)
            wall = time.monotonic() - t0
            try:
                a = json.loads(rec.stdout)
            except ValueError:
                print("| %d | %d | %.2f | pwtune said: %s |" % (
                    x, rnd, wall, (rec.stdout + rec.stderr).strip()[:80]))
                continue
            sr = a.get("search") or {}
            ratio = timer_mod.p95(timer_mod.times(
                timer, "libsodium", a["m_kib"], a["t"], a["p"])) / x
            cs_wall, cs = 0, None
            if have_cs:
                t0 = time.monotonic()
                out = subprocess.run(
                    ["cryptsetup", "benchmark", "--pbkdf", "argon2id",
                     "--iter-time", str(x)], capture_output=True, text=True)
                cs_wall = time.monotonic() - t0
                mt = pat.search(out.stdout)
                if mt:
                    ct, cm, cp = (int(v) for v in mt.groups())
                    cs = (cm, ct, cp, timer_mod.p95(timer_mod.times(
                        timer, "libargon2", cm, ct, cp)) / x)
            rows.setdefault(x, []).append((wall, ratio, cs_wall,
                                           cs[3] if cs else None))
            print("| %d | %d | %.2f | %d | %d | %s | %.1f | %.3f | %s | %s |"
                  % (x, rnd, wall, a["m_kib"], a["t"], sr.get("hashes", "?"),
                     sr.get("measured_ms", 0), ratio,
                     "%.2f" % cs_wall if have_cs else "-",
                     "%d | %d | %d | %.3f" % cs if cs else
                     "- | - | - | -"))
            sys.stdout.flush()
    print("\nMedians over the rounds:\n")
    print("| X ms | pwtune wall s | pwtune p95 / X | cryptsetup wall s | "
          "cryptsetup p95 / X | pwtune wall / cryptsetup wall |")
    print("|---|---|---|---|---|---|")
    for x in targets:
        r = rows.get(x, [])
        if not r:
            continue
        w = statistics.median(v[0] for v in r)
        q = statistics.median(v[1] for v in r)
        cw = [v[2] for v in r if v[3] is not None]
        cq = [v[3] for v in r if v[3] is not None]
        print("| %d | %.2f | %.3f | %s | %s | %s |" % (
            x, w, q, "%.2f" % statistics.median(cw) if cw else "-",
            "%.3f" % statistics.median(cq) if cq else "-",
            "%.2f" % (w / statistics.median(cw)) if cw else "-"))
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pwtune", default="build/cli/pwtune")
    ap.add_argument("--targets", default=None)
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    args.pwtune = os.path.abspath(args.pwtune)
    if args.cold:
        return cold(args, [int(x) for x in
                           (args.targets or "100,250,1000").split(",")])
    targets = [int(x) for x in
               (args.targets or "25,50,100,250,500,1000").split(",")]
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
