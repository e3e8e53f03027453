"""bench/stacks/time.py: times one (m, t, p) in Python, as a Python
service hashes, independently of pwtune and of its probes.

    /usr/bin/python3 time.py argon2-cffi|pynacl M_KIB T P WARMUP N

Prints the N latencies in milliseconds on one line; exit 3 when the
module is missing.
"""
import sys
import time

if len(sys.argv) != 7 or sys.argv[1] not in ("argon2-cffi", "pynacl"):
    sys.exit("usage: time.py argon2-cffi|pynacl M_KIB T P WARMUP N")
mode = sys.argv[1]
m, t, p, w, n = (int(x) for x in sys.argv[2:])
try:
    if mode == "argon2-cffi":
        import argon2
        ph = argon2.PasswordHasher(time_cost=t, memory_cost=m, parallelism=p)

        def one():
            ph.hash("bench-stacks-pw!")
    else:
        import nacl.pwhash.argon2id

        def one():
            nacl.pwhash.argon2id.str(b"bench-stacks-pw!", opslimit=t,
                                     memlimit=m * 1024)
except ImportError:
    sys.exit(3)
for _ in range(w):
    one()
out = []
for _ in range(n):
    a = time.perf_counter()
    one()
    out.append("%.3f" % ((time.perf_counter() - a) * 1e3))
print(" ".join(out))
