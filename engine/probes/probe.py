#!/usr/bin/python3
"""engine/probes/probe.py: the stack probe of Python (docs/STACKS.md).

    /usr/bin/python3 probe.py argon2-cffi|pynacl WARMUP M_KIB:T:P:N...

argon2-cffi: argon2.PasswordHasher(...).hash(pw), the python-argon2-cffi
stack (Debian's python3-argon2, through libargon2 and its allocator).
pynacl: nacl.pwhash.argon2id.str(pw, t, m * 1024), the python-pynacl
stack (Debian's python3-nacl, through libsodium; P must be 1).

Exit 0 done, 1 a hash failed, 2 bad usage, 3 the module is missing.
Standard library only, besides the module timed.
"""
import json
import re
import sys
import time

PW = b"correct-horse-16"
USAGE = "usage: python3 probe.py argon2-cffi|pynacl WARMUP M_KIB:T:P:N..."


def usage(why):
    sys.stderr.write("probe.py: %s\n%s\n" % (why, USAGE))
    sys.exit(2)


def line(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def mapped(lib):
    """The shared library lib (libargon2) this process loaded, as its map
    gives it: {"object": its file, "object_id": "DEV INODE"}, or {}: the
    daemon compares the identity with its own."""
    try:
        with open("/proc/self/maps") as f:
            for row in f:
                fields = row.split(None, 5)
                if len(fields) < 6 or not fields[5].startswith("/"):
                    continue
                path = fields[5].rstrip("\n")
                if path.rsplit("/", 1)[-1].startswith(lib + ".so"):
                    return {"object": path,
                            "object_id": "%s %s" % (fields[3], fields[4])}
    except OSError:
        pass
    return {}


def count_in(s, lo, hi):
    if not re.fullmatch(r"[0-9]{1,10}", s):
        return None
    v = int(s)
    return v if lo <= v <= hi else None


def main(argv):
    if len(argv) < 4:
        usage("too few arguments")
    mode = argv[1]
    if mode not in ("argon2-cffi", "pynacl"):
        usage("the mode is argon2-cffi or pynacl")
    warmup = count_in(argv[2], 0, 100000)
    if warmup is None:
        usage("WARMUP is a count from 0 to 100000")
    points = []
    for a in argv[3:]:
        f = a.split(":")
        if len(f) != 4:
            usage("a POINT is M_KIB:T:P:N")
        m = count_in(f[0], 8, 4194304)
        t = count_in(f[1], 1, 65535)
        p = count_in(f[2], 1, 255)
        n = count_in(f[3], 1, 100000)
        if None in (m, t, p, n) or m < 8 * p:
            usage("bad POINT %s (M_KIB:T:P:N, 8 KiB a lane at least)" % a)
        if mode == "pynacl" and p != 1:
            usage("libsodium hashes one lane: P must be 1")
        points.append((m, t, p, n))

    runtime = "Python %d.%d.%d" % sys.version_info[:3]
    if mode == "argon2-cffi":
        try:
            import argon2
        except ImportError:
            line({"error": "python3 module argon2 (argon2-cffi) is not "
                  "installed"})
            sys.exit(3)
        line({"probe": "python-argon2-cffi", "runtime": runtime,
              "library": "argon2-cffi %s (libargon2, its default allocator)"
              % getattr(argon2, "__version__", "?"),
              **mapped("libargon2")})

        def hasher(m, t, p):
            ph = argon2.PasswordHasher(time_cost=t, memory_cost=m,
                                       parallelism=p)
            return lambda: ph.hash(PW)
    else:
        try:
            import nacl
            import nacl.pwhash.argon2id
        except ImportError:
            line({"error": "python3 module nacl (PyNaCl) is not installed"})
            sys.exit(3)
        line({"probe": "python-pynacl", "runtime": runtime,
              "library": "PyNaCl %s (libsodium)"
              % getattr(nacl, "__version__", "?"),
              **mapped("libsodium")})

        def hasher(m, t, p):
            return lambda: nacl.pwhash.argon2id.str(PW, opslimit=t,
                                                    memlimit=m * 1024)

    def run(h):
        try:
            h()
        except Exception as e:  # the library's own error, said once
            line({"error": "%s: %s" % (type(e).__name__, e)})
            sys.exit(1)

    for m, t, p, n in points:
        h = hasher(m, t, p)
        warm = hasher(m, min(t, 2), p)  # two passes at most
        for _ in range(warmup):
            run(warm)  # untimed, at each point's m and p
        samples = []
        for _ in range(n):
            a = time.monotonic_ns()
            run(h)
            samples.append(round((time.monotonic_ns() - a) / 1e6, 3))
        line({"m_kib": m, "t": t, "p": p, "samples_ms": samples})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
