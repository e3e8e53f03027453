#!/usr/bin/env python3
"""tests/data/slow_backend.py IN OUT BACKEND FACTOR: the bench report IN
(pwtune bench --json) with every time of BACKEND's points FACTOR times as
long (throughput the same way), written to OUT (IN itself is allowed): a
library made slower than measured, whatever this machine's ratio is."""
import json
import sys

src, dst, backend, factor = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
d = json.load(open(src))
for p in d["points"]:
    if p["backend"] == backend:
        for k, v in p["stats"].items():
            if k.endswith("_ms"):
                p["stats"][k] = v * factor
        p["samples_ms"] = [v * factor for v in p.get("samples_ms", [])]
        if "throughput_per_s" in p:
            p["throughput_per_s"] = p["throughput_per_s"] / factor
json.dump(d, open(dst, "w"))
