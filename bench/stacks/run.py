#!/usr/bin/python3
"""bench/stacks/run.py: do pwtune's answers hold in the runtime that hashes?

For every client stack whose runtime is installed here, ask the daemon for
100, 250 and 500 ms (GET /v1/recommendation?target_ms=T&stack=NAME) and
time the parameters it gives IN THAT RUNTIME, with the small timers beside
this file (time.c, time.php, time.py, time.js, time.go, Time.java: not
pwtune, not its probes): 3 warm-up hashes, then --samples timed ones (15),
p95 at the nearest rank; with --rounds R, in R rounds where the stacks
take turns (each round warmed up again), so that a load that comes and
goes on a shared host weighs on every stack alike. Prints a table (p95 / target, its ratio to
libsodium's, within [0.85, 1.00] or not) and exits 1 when any stack and
target is out of that range (0 otherwise).

Before that it times each runtime at one fixed point (m = 64 MiB, t = 3,
p = 1), to check the timers against the probes' figures.

    /usr/bin/python3 bench/stacks/run.py [--url URL] [--pwtuned PATH]
        [--samples N] [--rounds R] [--targets 100,250,500] [--stacks a,b]
        [--no-fixed | --fixed-only] [--after-checks S [--checks-quiet S]]

With --after-checks S, each question is asked twice (as a service asks at
its start and again) and the daemon's background checks run before the
timing (until none ran for --checks-quiet seconds, at most S): the answers
timed are then those the checks measured and corrected, in the libraries
and, by their probes, in the client runtimes.

Without --url it starts its own pwtuned (--pwtuned, build/daemon/pwtuned
by default) on 127.0.0.1 with a free port and a temporary state directory,
lets its start-up run measure this host and stops it at the end. Standard
library only; the C, Go and Java timers are built into a temporary
directory first.
"""
import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GOPATH = "/usr/share/gocode"
BCPROV = "/usr/share/java/bcprov.jar"
NODE_MODULES = os.path.join(ROOT, "engine", "probes", "node", "node_modules")
PY = "/usr/bin/python3"  # Debian's, with python3-argon2 and python3-nacl
STACKS = ["libsodium", "libargon2", "php", "php-sodium",
          "python-argon2-cffi", "python-pynacl", "go", "node-argon2",
          "java-bouncycastle"]
RANGE = (0.85, 1.00)
WARMUP = 3
FIXED = (65536, 3, 1)
WAIT_STACKS_S = 180
FIXED_ROUNDS = 3
FIXED_N = 3


def log(msg):
    sys.stderr.write("bench/stacks: %s\n" % msg)
    sys.stderr.flush()


def p95(samples):
    """The 95th percentile at the nearest rank."""
    s = sorted(samples)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)]


def median(samples):
    s = sorted(samples)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


class Timers:
    """The command that times each stack, built where it must be."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.cmd = {}
        self.why = {}

    def build(self):
        c = os.path.join(self.tmp, "time-c")
        try:
            flags = subprocess.run(
                ["pkg-config", "--cflags", "--libs", "libsodium",
                 "libargon2"], check=True, capture_output=True,
                text=True).stdout.split()
            subprocess.run(["cc", "-std=c11", "-O2", "-D_GNU_SOURCE",
                            "-Wall", "-o", c, os.path.join(HERE, "time.c")]
                           + flags, check=True, capture_output=True,
                           text=True)
            self.cmd["libsodium"] = [c, "libsodium"]
            self.cmd["libargon2"] = [c, "libargon2"]
        except (OSError, subprocess.CalledProcessError) as e:
            why = "the C timer does not build: %s" % getattr(
                e, "stderr", e)
            self.why["libsodium"] = self.why["libargon2"] = why
        if shutil.which("php"):
            php = os.path.join(HERE, "time.php")
            self.cmd["php"] = ["php", php, "password_hash"]
            self.cmd["php-sodium"] = ["php", php, "sodium"]
        else:
            self.why["php"] = self.why["php-sodium"] = "no php (php-cli)"
        if os.path.exists(PY):
            py = os.path.join(HERE, "time.py")
            self.cmd["python-argon2-cffi"] = [PY, py, "argon2-cffi"]
            self.cmd["python-pynacl"] = [PY, py, "pynacl"]
        else:
            self.why["python-argon2-cffi"] = self.why["python-pynacl"] = \
                "no " + PY
        go = shutil.which("go")
        if go and os.path.isdir(os.path.join(
                GOPATH, "src/golang.org/x/crypto/argon2")):
            out = os.path.join(self.tmp, "time-go")
            env = dict(os.environ, GO111MODULE="off", GOPATH=GOPATH,
                       GOCACHE=os.path.join(self.tmp, "gocache"), GOFLAGS="")
            r = subprocess.run([go, "build", "-o", out,
                                os.path.join(HERE, "time.go")], env=env,
                               capture_output=True, text=True)
            if r.returncode == 0:
                self.cmd["go"] = [out]
            else:
                self.why["go"] = "the Go timer does not build: " + r.stderr
        else:
            self.why["go"] = "no go or no x/crypto/argon2 " \
                "(golang-go, golang-golang-x-crypto-dev)"
        if shutil.which("node") and os.path.isdir(
                os.path.join(NODE_MODULES, "argon2")):
            self.cmd["node-argon2"] = ["node", os.path.join(HERE, "time.js")]
        else:
            self.why["node-argon2"] = "no node or no argon2 package " \
                "(make probe-deps)"
        javac = shutil.which("javac")
        if javac and shutil.which("java") and os.path.exists(BCPROV):
            r = subprocess.run([javac, "-d", self.tmp, "-cp", BCPROV,
                                os.path.join(HERE, "Time.java")],
                               capture_output=True, text=True)
            if r.returncode == 0:
                self.cmd["java-bouncycastle"] = [
                    "java", "-cp", self.tmp + ":" + BCPROV, "Time"]
            else:
                self.why["java-bouncycastle"] = \
                    "the Java timer does not build: " + r.stderr
        else:
            self.why["java-bouncycastle"] = "no javac, java or " + BCPROV + \
                " (default-jdk-headless, libbcprov-java)"

    def time(self, stack, m, t, p, warmup, n):
        """n latencies in ms, or raises RuntimeError with why."""
        env = dict(os.environ, NODE_PATH=NODE_MODULES)
        args = self.cmd[stack] + [str(x) for x in (m, t, p, warmup, n)]
        r = subprocess.run(args, env=env, capture_output=True, text=True,
                           timeout=600)
        if r.returncode == 3:
            raise RuntimeError("the runtime lacks the library")
        if r.returncode != 0:
            raise RuntimeError("exit %d: %s" % (r.returncode,
                                                 (r.stderr or r.stdout)
                                                 .strip()[-300:]))
        ms = [float(x) for x in r.stdout.split()]
        if len(ms) != n:
            raise RuntimeError("%d latencies, wanted %d" % (len(ms), n))
        return ms

    def installed(self):
        """The stacks whose timer runs here (one small hash each)."""
        have = []
        for s in STACKS:
            if s not in self.cmd:
                continue
            try:
                self.time(s, 8192, 2, 1, 0, 1)
                have.append(s)
            except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
                self.why[s] = str(e)
        return have


class Daemon:
    """A pwtuned of our own, or the one at --url."""

    def __init__(self, url, pwtuned):
        self.url = url
        self.pwtuned = pwtuned
        self.proc = None
        self.state = None
        self.check_budget = None

    def start(self):
        if self.url:
            return
        self.state = tempfile.mkdtemp(prefix="pwtune-bench-stacks-")
        os.chmod(self.state, 0o700)
        # Appended to (O_APPEND): our seeks to read it do not move where
        # the daemon writes.
        logf = open(os.path.join(self.state, "log"), "a+")
        env = dict(os.environ, PWTUNED_COOLDOWN="0")
        if self.check_budget:
            env["PWTUNED_CHECK_BUDGET"] = str(self.check_budget)
        self.proc = subprocess.Popen(
            [self.pwtuned, "--state-dir", self.state, "--listen",
             "127.0.0.1:0"], stdout=logf, stderr=subprocess.STDOUT,
            env=env)
        self.log = logf
        for _ in range(200):
            logf.seek(0)
            mo = re.search(r"listening on 127\.0\.0\.1:(\d+)", logf.read())
            if mo:
                self.url = "http://127.0.0.1:%s" % mo.group(1)
                log("pwtuned (pid %d) on %s, state in a temporary "
                    "directory" % (self.proc.pid, self.url))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        logf.seek(0)
        raise SystemExit("pwtuned did not start:\n" + logf.read()[-2000:])

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.log.close()
        if self.state:
            shutil.rmtree(self.state, ignore_errors=True)

    def print_verifications(self):
        """Our own daemon's log lines for its run's verifications and its
        checks' results: what it measured at its answers itself."""
        if self.proc is None:
            return
        self.log.seek(0)
        lines = [ln.rstrip() for ln in self.log
                 if re.search(r"verification of|measured .* of the "
                              r"target|refitted", ln)]
        if lines:
            print("\nThe daemon's own measurements (its log):")
            for ln in lines:
                print("  " + ln)

    def get(self, path):
        """(status, JSON body or None)."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            try:
                return e.code, json.loads(e.read())
            except ValueError:
                return e.code, None
        except (urllib.error.URLError, OSError, ValueError):
            return 0, None


def stacks_member(j):
    """The answer's stacks member as {name: entry}, or None without one."""
    s = j.get("stacks") if isinstance(j, dict) else None
    if isinstance(s, dict):
        return {k: v for k, v in s.items() if isinstance(v, dict)}
    if isinstance(s, list):
        out = {}
        for e in s:
            if isinstance(e, dict):
                name = e.get("stack") or e.get("name")
                if isinstance(name, str):
                    out[name] = e
        return out
    return None


def wait_stacks(d, stacks):
    """Wait until every installed stack is probed here; True when the
    daemon answers per stack, False when it has no stacks member."""
    deadline = time.monotonic() + WAIT_STACKS_S
    last = None
    while time.monotonic() < deadline:
        st, j = d.get("/v1/recommendation?target_ms=250")
        if st == 200:
            sm = stacks_member(j)
            if sm is None:
                return False
            waiting = [s for s in stacks
                       if sm.get(s, {}).get("how") != "probed here"]
            if not waiting:
                return True
            if waiting != last:
                log("waiting for the probes of: " + ", ".join(waiting))
                last = waiting
        time.sleep(1)
    log("after %d s, not probed here yet: %s (going on with what the "
        "daemon answers)" % (WAIT_STACKS_S, ", ".join(last or [])))
    return True


def wait_runs(d):
    """Wait until no run is queued or running. A run stays running after
    its probes, through its verifications (hashes of the daemon's own,
    beside any timed here) and the refit that follows them (answers that
    move): the answers are asked and timed after it."""
    deadline = time.monotonic() + WAIT_STACKS_S
    said = False
    while time.monotonic() < deadline:
        st, j = d.get("/v1/runs")
        if st == 0:
            log("the daemon does not answer /v1/runs (going on)")
            return
        runs = j.get("runs") if st == 200 and isinstance(j, dict) else None
        if isinstance(runs, list) and not any(
                isinstance(r, dict) and r.get("status") in (
                    "queued", "running") for r in runs):
            return
        if not said:
            log("waiting for the daemon's run to end (its verifications)")
            said = True
        time.sleep(1)
    log("after %d s, a run is still going (going on)" % WAIT_STACKS_S)


def checks_done(text):
    """pwtuned_checks_total over every result but "waited" (/metrics)."""
    return sum(float(v) for r, v in re.findall(
        r'^pwtuned_checks_total\{result="([^"]*)"\} (\S+)$', text, re.M)
        if r != "waited")


def settle_checks(d, questions, limit_s, quiet_s):
    """Each question asked twice, as a service asks at its start and
    again (the daemon checks a question from its second asking, not
    within 3 s of one), then not asked while the daemon's background
    checks run: until none ran for quiet_s, or limit_s. (checks, s)."""
    for q in questions:
        d.get(q)
    time.sleep(1)
    for q in questions:
        d.get(q)
    t0 = time.monotonic()
    last, last_change = -1, t0
    while time.monotonic() - t0 < limit_s:
        try:
            with urllib.request.urlopen(d.url + "/metrics",
                                        timeout=30) as r:
                n = checks_done(r.read().decode())
        except (urllib.error.URLError, OSError):
            n = last
        if n != last:
            last, last_change = n, time.monotonic()
        elif time.monotonic() - last_change >= quiet_s:
            break
        time.sleep(2)
    return last, time.monotonic() - t0


def fixed_point(timers, stacks):
    """Each runtime at FIXED: FIXED_ROUNDS rounds, the stacks taking turns
    (a load that comes and goes on a shared host weighs on all alike),
    each round WARMUP warm-up hashes then FIXED_N timed."""
    m, t, p = FIXED
    ms = {s: [] for s in stacks}
    why = {}
    for _ in range(FIXED_ROUNDS):
        for s in stacks:
            if s in why:
                continue
            try:
                ms[s] += timers.time(s, m, t, p, WARMUP, FIXED_N)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                why[s] = str(e)
    print("Each runtime at m=%d KiB, t=%d, p=%d (%d rounds of %d warm-up "
          "and %d timed hashes, the stacks taking turns):" % (
              m, t, p, FIXED_ROUNDS, WARMUP, FIXED_N))
    print("%-20s %9s %9s %9s" % ("stack", "median ms", "p95 ms",
                                 "vs sodium"))
    base = median(ms["libsodium"]) if ms.get("libsodium") else None
    for s in stacks:
        if s in why:
            print("%-20s error: %s" % (s, why[s]))
            continue
        print("%-20s %9.1f %9.1f %9s" % (
            s, median(ms[s]), p95(ms[s]),
            "%.2f" % (median(ms[s]) / base) if base else "-"))
    print()
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", help="a running pwtuned (else one of its own)")
    ap.add_argument("--pwtuned",
                    default=os.path.join(ROOT, "build", "daemon", "pwtuned"))
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=1,
                    help="time each answer in R rounds, the stacks taking "
                    "turns (each round warms up again)")
    ap.add_argument("--targets", default="100,250,500")
    ap.add_argument("--after-checks", type=int, default=0, metavar="S",
                    help="ask each question twice, let the daemon's "
                    "background checks run (at most S seconds; its own "
                    "daemon then has check_budget 100), then time")
    ap.add_argument("--checks-quiet", type=int, default=60, metavar="S",
                    help="with --after-checks: done when no check ran "
                    "for S seconds (60)")
    ap.add_argument("--stacks", help="only these (comma-separated)")
    ap.add_argument("--no-fixed", action="store_true",
                    help="skip the fixed-point timing of each runtime")
    ap.add_argument("--fixed-only", action="store_true",
                    help="only the fixed-point timing of each runtime")
    a = ap.parse_args()
    if a.samples < 15:
        ap.error("--samples: at least 15")
    if not 1 <= a.rounds <= a.samples:
        ap.error("--rounds: from 1 to --samples")
    targets = [int(x) for x in a.targets.split(",")]

    tmp = tempfile.mkdtemp(prefix="pwtune-bench-timers-")
    d = Daemon(a.url, a.pwtuned)
    if a.after_checks > 0:
        d.check_budget = 100
    try:
        timers = Timers(tmp)
        timers.build()
        stacks = timers.installed()
        if a.stacks:
            want = a.stacks.split(",")
            stacks = [s for s in stacks if s in want]
        for s in STACKS:
            if s not in stacks and s in timers.why:
                print("%-20s not timed here: %s" % (s, timers.why[s]))
        if not stacks:
            log("no stack's runtime is installed here")
            return 1

        if not a.no_fixed:
            fixed_point(timers, stacks)
            if a.fixed_only:
                return 0

        d.start()
        for _ in range(300):
            st, _ = d.get("/readyz")
            if st == 200:
                break
            time.sleep(1)
        per_stack = wait_stacks(d, stacks)
        wait_runs(d)
        if not per_stack:
            print("NOTE: the daemon's answer has no `stacks` member (no "
                  "per-stack answers yet): every stack is timed with the "
                  "top-level (libsodium) answer.")

        checks_note = ""
        if a.after_checks > 0:
            qs = ["/v1/recommendation?target_ms=%d%s" % (
                tgt, "&stack=" + s if per_stack else "")
                for s in stacks for tgt in targets]
            n, took = settle_checks(d, qs, a.after_checks, a.checks_quiet)
            checks_note = ("after the daemon's background checks (%d "
                           "checks in %.0f s)" % (n, took))
            log(checks_note)

        # The answers first, then the timing: with --rounds R, R rounds
        # in which the stacks take turns, each a process of WARMUP warm-up
        # hashes and samples / R timed ones.
        rows = []
        for s in stacks:
            for tgt in targets:
                q = "/v1/recommendation?target_ms=%d" % tgt
                if per_stack:
                    q += "&stack=" + s
                st, j = d.get(q)
                row = {"stack": s, "target": tgt, "error": None, "ms": []}
                if st != 200 or not isinstance(j, dict) or \
                        not all(k in j for k in ("m_kib", "t", "p")):
                    row["error"] = "HTTP %d: %s" % (
                        st, json.dumps(j)[:200] if j else "no answer")
                else:
                    lat = j.get("latency") or {}
                    row.update(m_kib=j["m_kib"], t=j["t"], p=j["p"],
                               pred=lat.get("predicted_ms"),
                               pred50=lat.get("predicted_p50_ms"))
                rows.append(row)
        per_round = -(-a.samples // a.rounds)
        for tgt in targets:
            for _ in range(a.rounds):
                for row in rows:
                    if row["target"] != tgt or row["error"]:
                        continue
                    try:
                        row["ms"] += timers.time(
                            row["stack"], row["m_kib"], row["t"], row["p"],
                            WARMUP, per_round)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        row["error"] = str(e)
            for row in rows:
                if row["target"] != tgt:
                    continue
                if not row["error"]:
                    row["p95"] = p95(row["ms"])
                    row["ratio"] = row["p95"] / tgt
                log("%s %d ms: %s" % (row["stack"], tgt, row["error"] or
                                      "p95 %.1f ms" % row["p95"]))

        base = {r["target"]: r["ratio"] for r in rows
                if r["stack"] == "libsodium" and "ratio" in r}
        print("Parameters from %s%s, timed in each runtime (%s%d "
              "warm-up, %d timed, p95 at the nearest rank):" % (
                  "GET /v1/recommendation?target_ms=T&stack=NAME"
                  if per_stack else
                  "GET /v1/recommendation?target_ms=T (no stack support)",
                  " " + checks_note if checks_note else "",
                  "%d rounds of " % a.rounds if a.rounds > 1 else "",
                  WARMUP, per_round if a.rounds > 1 else a.samples))
        print("%-20s %6s %8s %3s %3s %9s %8s %8s %8s %9s %9s" % (
            "stack", "target", "m_kib", "t", "p", "p95 ms", "p95/tgt",
            "vs sodium", "in range", "predicted", "med/model"))
        bad = 0
        for r in rows:
            if r["error"]:
                bad += 1
                print("%-20s %6d %s" % (r["stack"], r["target"],
                                        "error: " + r["error"]))
                continue
            ok = RANGE[0] <= r["ratio"] <= RANGE[1]
            bad += not ok
            vs = "%.2f" % (r["ratio"] / base[r["target"]]) \
                if r["target"] in base else "-"
            # What the daemon predicted (its p95), and the median timed
            # here over its predicted median: which of the two was off.
            pred = "%.1f" % r["pred"] if isinstance(
                r.get("pred"), (int, float)) else "-"
            medm = "%.2f" % (median(r["ms"]) / r["pred50"]) if isinstance(
                r.get("pred50"), (int, float)) and r["pred50"] > 0 else "-"
            print("%-20s %6d %8d %3d %3d %9.1f %8.2f %8s %8s %9s %9s" % (
                r["stack"], r["target"], r["m_kib"], r["t"], r["p"],
                r["p95"], r["ratio"], vs, "yes" if ok else "no", pred,
                medm))
        print("%d of %d stack x target within [%.2f, %.2f] of the target%s"
              % (len(rows) - bad, len(rows), RANGE[0], RANGE[1],
                 "" if per_stack else
                 " (the daemon answers no stacks yet: expected out)"))
        d.print_verifications()
        return 1 if bad else 0
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
