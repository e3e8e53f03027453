#!/usr/bin/env python3
"""bench/repeat: how far the same parameters' p95 moves from one timing to
the next on this host, and so the most of a band any answer can reach.

The benches judge an answer by one timing of it: bench/stacks/time.c, 15
hashes after 3 warm-ups, k timers at once for k > 1, the p95 at the
nearest rank of the hashes pooled (of 15 the largest, of 2 x 15 the
second largest). This times fixed parameters that way (libsodium, t = 1,
p = 1, each size of --sizes at each k of --k) --reps times, every size
and k in turn within a round so that the host's moments fall on all of
them alike. Per size and k it prints:

  median ms       the median of the timings' medians
  medians' spread the largest of the timings' medians over the least
  p95 ms          the timings' p95s: least, median, largest
  spread          the largest p95 over the least
  p95 / median    the median p95 over the median ms
  ceiling         for each band of --bands (its bottom over its top:
                  0.90 is [0.90, 1.00] of a target, issue 18's; 0.85 is
                  issue 17's), the largest share of the p95s that one
                  band that wide holds, moved to wherever it holds the
                  most: no answer, however right, is timed in the band
                  more often than the parameters it names are
  aimed           the share in the band whose middle is the p95s' median
                  (the daemon's checks aim a corrected answer at 0.95 of
                  the target: the middle of [0.90, 1.00])

then each band's ceiling and aimed share averaged over the rows, and
every p95 in the order timed. The defaults take about ten minutes and up
to 2 GiB at once (1024 MiB at k = 2).
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timer as timer_mod  # noqa: E402  (bench/timer.py)


def ceiling(values, lo):
    """The largest share of values within [lo x top, top] for any top (a
    best band's top is one of the values)."""
    best = 0
    for top in values:
        best = max(best, sum(1 for v in values if lo * top <= v <= top))
    return best / len(values)


def aimed(values, lo):
    """The share within the band whose middle is the values' median."""
    mid = statistics.median(values)
    top = mid / ((1 + lo) / 2)
    return sum(1 for v in values if lo * top <= v <= top) / len(values)


def parse_list(ap, name, text, conv, lo, hi):
    """text as a comma-separated list of conv values, each in [lo, hi] (or
    (lo, hi) for floats), none twice; an error naming the option and the
    value otherwise."""
    out = []
    for item in text.split(","):
        try:
            v = conv(item)
        except ValueError:
            ap.error("%s: %r is not a %s (a comma-separated list)" % (
                name, item, "whole number" if conv is int else "number"))
        if not (lo <= v <= hi if conv is int else lo < v < hi):
            ap.error("%s: %s is out of %s%s, %s%s" % (
                name, item, "[" if conv is int else "(", lo, hi,
                "]" if conv is int else ")"))
        if v in out:
            ap.error("%s: %s is given twice" % (name, item))
        out.append(v)
    return out


def ratio(a, b):
    """a / b to three places, or "-" where b is 0."""
    return "%.3f" % (a / b) if b > 0 else "-"


def mem_available_mib():
    """MemAvailable of /proc/meminfo in MiB, or None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def on_term(signum, frame):
    raise SystemExit(128 + signum)  # the temporary folder goes as well


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", default="64,256,512,1024",
                    help="m in MiB, comma-separated, each 1..4096 "
                    "(default %(default)s)")
    ap.add_argument("--k", default="1,2",
                    help="hashes at once, comma-separated, each 1..16 "
                    "(default %(default)s)")
    ap.add_argument("--reps", type=int, default=8,
                    help="timings of each size and k, 2 or more "
                    "(default %(default)s)")
    ap.add_argument("--n", type=int, default=15,
                    help="hashes per timer, 2 to 1000 (default "
                    "%(default)s)")
    ap.add_argument("--warmup", type=int, default=3,
                    help="hashes per timer before the timed ones, 0 to "
                    "1000 (default %(default)s)")
    ap.add_argument("--bands", default="0.90,0.85",
                    help="each band's bottom over its top, comma-separated, "
                    "each in (0, 1) (default %(default)s)")
    args = ap.parse_args()
    sizes = parse_list(ap, "--sizes", args.sizes, int, 1, 4096)
    ks = parse_list(ap, "--k", args.k, int, 1, 16)
    bands = parse_list(ap, "--bands", args.bands, float, 0, 1)
    if args.reps < 2:
        ap.error("--reps: %d is under 2" % args.reps)
    if not 2 <= args.n <= 1000:
        ap.error("--n: %d is out of [2, 1000]" % args.n)
    if not 0 <= args.warmup <= 1000:
        ap.error("--warmup: %d is out of [0, 1000]" % args.warmup)
    avail = mem_available_mib()
    if avail is not None and max(sizes) * max(ks) > avail:
        ap.error("--sizes and --k: %d MiB at k = %d is %d MiB at once, "
                 "more than this host has available (%d MiB)" % (
                     max(sizes), max(ks), max(sizes) * max(ks), avail))
    signal.signal(signal.SIGTERM, on_term)

    tmp = tempfile.mkdtemp(prefix="pwtune-repeat-")
    try:
        try:
            timer = timer_mod.build(tmp)
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit("bench/repeat.py: cannot build bench/stacks/time.c (it "
                     "needs cc, pkg-config and the libsodium and libargon2 "
                     "development files: make deps): %s%s" % (
                         e, (": " + e.stderr.strip()) if getattr(
                             e, "stderr", None) else ""))
        rows = {}
        for rnd in range(args.reps):
            for m in sizes:
                for k in ks:
                    s = timer_mod.times(timer, "libsodium", m * 1024, 1, 1,
                                        n=args.n, warmup=args.warmup, k=k)
                    rows.setdefault((m, k), []).append(
                        (statistics.median(s), timer_mod.p95(s)))
            print("round %d of %d done" % (rnd + 1, args.reps), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("\n| m MiB | k | median ms | medians' spread | p95 ms: least, "
          "median, largest | spread | p95 / median | %s |" % " | ".join(
              "ceiling in [%.2f, 1.00] | aimed at its middle" % b
              for b in bands))
    print("|---|---|---|---|---|---|---|%s" % ("---|---|" * len(bands)))
    ceils = [[] for _ in bands]
    aims = [[] for _ in bands]
    for m in sizes:
        for k in ks:
            r = rows[(m, k)]
            meds = [x[0] for x in r]
            med = statistics.median(meds)
            p95s = [x[1] for x in r]
            cells = []
            for i, b in enumerate(bands):
                ceils[i].append(ceiling(p95s, b))
                aims[i].append(aimed(p95s, b))
                cells.append("%.0f %% | %.0f %%" % (100 * ceils[i][-1],
                                                    100 * aims[i][-1]))
            print("| %d | %d | %.1f | %s | %.1f, %.1f, %.1f | %s | %s | "
                  "%s |" % (m, k, med, ratio(max(meds), min(meds)),
                            min(p95s), statistics.median(p95s), max(p95s),
                            ratio(max(p95s), min(p95s)),
                            ratio(statistics.median(p95s), med),
                            " | ".join(cells)))
    print()
    for i, b in enumerate(bands):
        print("over every size and k, the band [%.2f, 1.00]: ceiling %.0f %% "
              "(mean), aimed at the middle %.0f %%" % (
                  b, 100 * statistics.mean(ceils[i]),
                  100 * statistics.mean(aims[i])))
    print("%d timings each of %d hashes per timer; the p95s in order:" % (
        args.reps, args.n))
    for m in sizes:
        for k in ks:
            print("  %d MiB, k = %d: %s" % (m, k, " ".join(
                "%.1f" % x[1] for x in rows[(m, k)])))


if __name__ == "__main__":
    main()
