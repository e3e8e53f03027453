"""bench/timer.py: bench/stacks/time.c, built and run for the Python
benchmarks (accuracy.py --cold, closed_loop.py): hashes timed outside
pwtune, in C, by their own clock."""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def build(tmp):
    """Build time.c into tmp, as bench/stacks/run.py does; its path."""
    exe = os.path.join(tmp, "time-c")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libsodium",
                            "libargon2"], check=True, capture_output=True,
                           text=True).stdout.split()
    subprocess.run(["cc", "-std=c11", "-O2", "-D_GNU_SOURCE", "-o", exe,
                    os.path.join(HERE, "stacks", "time.c")] + flags,
                   check=True, capture_output=True, text=True)
    return exe


def p95(samples):
    """The 95th percentile at the nearest rank (of 15: the largest)."""
    s = sorted(samples)
    return s[max(0, -(-95 * len(s) // 100) - 1)]


def times(timer, lib, m_kib, t, p, n=15, warmup=3, k=1):
    """n latencies (ms) of each of k timers running at once, pooled."""
    procs = [subprocess.Popen([timer, lib, str(m_kib), str(t), str(p),
                               str(warmup), str(n)], stdout=subprocess.PIPE,
                              text=True) for _ in range(k)]
    out = []
    try:
        for pr in procs:
            o, _ = pr.communicate()
            if pr.returncode != 0:
                raise RuntimeError("time.c %s m=%d t=%d p=%d failed" % (
                    lib, m_kib, t, p))
            out += [float(x) for x in o.split()]
    finally:
        for pr in procs:    # a timer left after a failure: not hashing on
            if pr.poll() is None:
                pr.kill()
                pr.wait()
    return out
