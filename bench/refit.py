#!/usr/bin/env python3
"""bench/refit: how a change to the model moves its leave-one-out error,
refitting runs already stored, beside a baseline built in the same run.

For each finished run of each store named (a SQLite file of pwtuned or
pwtune bench --db), the run is exported (pwtune db export) and split per
backend (its Argon2id points, every k), and each part with 6 points or
more at k = 1 is refitted by this build's pwtune and by --baseline's:
`pwtune recommend --from PART
--target-ms 250 --backend B --floor none --json`, whose model object
carries the fit's leave-one-out error (each k = 1 point left out, the
rest refitted, the point predicted: pwtuned_model_loo_error_ratio). One
curve per part, so the figures are that curve's. It prints, per run and
backend, the points, the median and the worst error of each build, then
per backend the medians over the runs and how many meet issue 18's
figures (median <= 5 %, worst <= 15 %). A part either build could not
refit is named with why, and the exit status is 1.

  python3 bench/refit.py --baseline caa5bb7 var/pwtune.db other.db

--baseline REV builds that revision's pwtune in a temporary folder (git
archive, cmake: from seconds to a minute); --baseline-bin names one
already built.
Nothing is measured: the points are the stores', so the same runs give
the same figures on any host. The stores are read, never written.
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LOO_MIN_POINTS = 6      # engine/model.h MODEL_LOO_MIN_POINTS
CHILD = None            # the build step running, in its own group


def die(msg):
    print("refit: " + msg, file=sys.stderr)
    sys.exit(2)


def on_term(*_):
    """SIGTERM as Ctrl-C: the build's whole group stopped, then out (the
    finally of main removes the temporary folder)."""
    if CHILD is not None and CHILD.poll() is None:
        try:
            os.killpg(CHILD.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        CHILD.wait()
    sys.exit(143)


def build_baseline(rev, tmp):
    global CHILD
    src = os.path.join(tmp, "src")
    os.mkdir(src)
    # A commit, never an option: resolved first.
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "--quiet",
                        "--end-of-options", rev + "^{commit}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        die("--baseline %s: not a commit of this repository" % rev)
    commit = r.stdout.strip()
    try:
        arch = subprocess.run(["git", "-C", ROOT, "archive", commit],
                              capture_output=True, check=True).stdout
    except subprocess.CalledProcessError as e:
        die("--baseline %s: git archive failed: %s" %
            (rev, e.stderr.decode(errors="replace").strip()))
    subprocess.run(["tar", "-x", "-C", src], input=arch, check=True)
    bld = os.path.join(tmp, "build")
    for cmd in (["cmake", "-S", src, "-B", bld, "-DCMAKE_BUILD_TYPE=Release"],
                ["cmake", "--build", bld, "--target", "pwtune", "-j2"]):
        # Its own group: make and the compilers stop with it.
        CHILD = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True,
                                 start_new_session=True)
        out, _ = CHILD.communicate()
        rc, CHILD = CHILD.returncode, None
        if rc != 0:
            die("--baseline %s: %s failed:\n%s" % (rev, " ".join(cmd[:2]),
                                                   out[-4000:]))
    return os.path.join(bld, "cli", "pwtune")


def finished_runs(store):
    """The ids of a store's finished runs (read only)."""
    try:
        # As a file: URI of its absolute path (a '#', '?' or '%' in the
        # name escaped), read only: the store is never written.
        con = sqlite3.connect(pathlib.Path(store).resolve().as_uri() +
                              "?mode=ro", uri=True)
        ids = [r[0] for r in con.execute(
            "SELECT id FROM runs WHERE status = 'done' ORDER BY id")]
        con.close()
    except sqlite3.Error as e:
        die("%s: not a pwtune store (%s)" % (store, e))
    return ids


def loo(pwtune, part, backend):
    """(median, worst), or the reason there is none."""
    r = subprocess.run([pwtune, "recommend", "--from", part, "--target-ms",
                        "250", "--backend", backend, "--floor", "none",
                        "--json"], capture_output=True, text=True)
    try:
        m = json.loads(r.stdout)["model"]
        med, worst = m["loo_median_error"], m["loo_worst_error"]
    except (ValueError, KeyError, TypeError):
        last = (r.stderr.strip().splitlines() or ["no output"])[-1]
        return "exit %d, %s" % (r.returncode, last)
    if med is None or worst is None:
        return None     # too few points left after those set aside
    return med, worst


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 compared; 1 a part either build could not "
        "refit, or nothing to compare; 2 bad usage or input (named).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stores", nargs="+", metavar="STORE",
                    help="a pwtune SQLite store (opened read only)")
    ap.add_argument("--pwtune", default=os.path.join(ROOT, "build", "cli",
                                                     "pwtune"),
                    help="this build's pwtune (default build/cli/pwtune)")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--baseline", metavar="REV",
                   help="a git revision to build and compare against")
    g.add_argument("--baseline-bin", metavar="BIN",
                   help="a baseline pwtune already built")
    a = ap.parse_args()
    # The file checked is the file run (not one found on PATH).
    a.pwtune = os.path.abspath(a.pwtune)
    if a.baseline_bin:
        a.baseline_bin = os.path.abspath(a.baseline_bin)
    if not (os.path.isfile(a.pwtune) and os.access(a.pwtune, os.X_OK)):
        die("--pwtune %s: not an executable file (make build first)" %
            a.pwtune)
    for s in a.stores:
        if os.path.isdir(s):
            die("%s: a directory, not a store" % s)
        if not os.path.isfile(s):
            die("%s: no such file" % s)
        finished_runs(s)        # every store checked before any work
    signal.signal(signal.SIGTERM, on_term)
    tmp = None
    try:
        tmp = tempfile.mkdtemp(prefix="pwtune-refit-")
        base = a.baseline_bin or build_baseline(a.baseline, tmp)
        if not (os.path.isfile(base) and os.access(base, os.X_OK)):
            die("--baseline-bin %s: not an executable file" % base)
        rows, failed, seen = [], [], set()
        for si, store in enumerate(a.stores, 1):
            for run in finished_runs(store):
                r = subprocess.run([a.pwtune, "db", "export", "--db", store,
                                    "--run", str(run)], capture_output=True,
                                   text=True)
                if r.returncode != 0:
                    failed.append("store %d run %d: export failed: %s" %
                                  (si, run, r.stderr.strip()))
                    continue
                try:
                    doc = json.loads(r.stdout)
                    doc["points"]
                except (ValueError, KeyError, TypeError):
                    failed.append("store %d run %d: export not a pwtune "
                                  "bench document" % (si, run))
                    continue
                for be in sorted({p["backend"] for p in doc["points"]}):
                    pts = [p for p in doc["points"] if p["backend"] == be and
                           p["variant"] == "argon2id" and p["p"] == 1]
                    k1 = [p for p in pts if p["k"] == 1 and
                          p["status"] == "ok"]
                    key = (be, tuple(sorted((p["m_kib"], p["t"],
                                             round(p["stats"]["median_ms"],
                                                   4)) for p in k1)))
                    if len(k1) < LOO_MIN_POINTS or key in seen:
                        continue        # too few to refit; a copy
                    seen.add(key)
                    part = os.path.join(tmp, "part.json")
                    with open(part, "w") as f:
                        json.dump(dict(doc, points=pts), f)
                    old, new = loo(base, part, be), loo(a.pwtune, part, be)
                    if old is None and new is None:
                        continue        # neither build has an error to give
                    for name, got in (("baseline", old), ("this build", new)):
                        if got is None:
                            got = "no leave-one-out error"
                        if isinstance(got, str):
                            failed.append("store %d run %d %s: %s: %s" % (
                                si, run, be, name, got))
                    if not isinstance(old, tuple) or not isinstance(new, tuple):
                        continue
                    rows.append((si, run, be, len(k1), old, new))
        print("| store (its place in the arguments) | run | curve | points | baseline median / worst |"
              " this build median / worst |")
        print("|---|---|---|---|---|---|")
        for st, run, be, n, old, new in rows:
            print("| %d | %d | %s | %d | %.1f / %.1f %% | %.1f / %.1f %% |" %
                  (st, run, be, n, 100 * old[0], 100 * old[1],
                   100 * new[0], 100 * new[1]))
        print()
        print("| curve | runs | build | median of medians | median of "
              "worsts | median <= 5 % | worst <= 15 % |")
        print("|---|---|---|---|---|---|---|")
        for be in sorted({r[2] for r in rows}):
            rs = [r for r in rows if r[2] == be]
            for name, i in (("baseline", 4), ("this build", 5)):
                print("| %s | %d | %s | %.1f %% | %.1f %% | %d | %d |" % (
                    be, len(rs), name,
                    100 * statistics.median(r[i][0] for r in rs),
                    100 * statistics.median(r[i][1] for r in rs),
                    sum(r[i][0] <= 0.05 for r in rs),
                    sum(r[i][1] <= 0.15 for r in rs)))
        for f in failed:
            print("not compared, %s" % f)
        if failed:
            return 1
        if not rows:
            print("no run with %d or more points at k = 1 to refit" %
                  LOO_MIN_POINTS)
            return 1
        return 0
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
