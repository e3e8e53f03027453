#!/usr/bin/env python3
"""tests/fleet/hosts.py: N imaginary hosts from one run JSON, for fleets on
a SQLite store without namespaces or PostgreSQL.

Usage: hosts.py RUN.json N OUTDIR

Host i gets its own host id and fingerprint (i as 32 hex digits, and the
same with an 'f' prefix), its run the time of now, and every latency
1 + i/N times the original's (so no two hosts have the same model, and
an answer computed from the wrong host's model shows). Writes
OUTDIR/host-i.json for i in 0..N-1.
"""
import json
import sys
import time

src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
base = json.load(open(src))
now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
for i in range(n):
    run = json.loads(json.dumps(base))
    run["created"] = now
    run["host"]["host_id"] = "%032x" % (i + 1)
    run["host"]["fingerprint"] = "f%031x" % (i + 1)
    f = 1 + i / n
    for pt in run["points"]:
        st = pt.get("stats") or {}
        for k in list(st):
            if k.endswith("_ms"):
                st[k] *= f
        if "samples_ms" in pt:
            pt["samples_ms"] = [v * f for v in pt["samples_ms"]]
        if pt.get("throughput_per_s"):
            pt["throughput_per_s"] /= f
    with open("%s/host-%d.json" % (out, i), "w") as fh:
        json.dump(run, fh)
