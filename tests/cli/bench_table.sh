#!/usr/bin/env bash
# The bench table, as BenchmarkDotNet's: one table for the backends
# compared, each point's baseline row first and the others under it; a
# Ratio column of numbers only (NA where there is no baseline); noisy
# points as warnings under the table, not in it. Printed from a saved run
# (bench --show) made from tests/data/quick-run.json with a second backend
# 1.25 times slower, one of its points noisy and one skipped; then a small
# real run with both backends.
. "$(dirname "$0")/lib.sh"
RUN=${RUN:?RUN must name tests/data/quick-run.json}
P=$PWTUNE

python3 - "$RUN" "$TMP/two.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
pts = [p for p in d["points"] if p["m_kib"] <= 32768]
for p in pts:
    p["noise"]["noisy"] = False
more = []
for i, p in enumerate(pts):
    q = copy.deepcopy(p)
    q["backend"] = "libargon2"
    for k in ("min_ms", "median_ms", "mean_ms", "stddev_ms", "error_ms", "p95_ms", "p99_ms", "max_ms"):
        if k in q["stats"]:
            q["stats"][k] *= 1.25
    q["samples_ms"] = [s * 1.25 for s in q.get("samples_ms", [])]
    q["noise"]["noisy"] = i == 0
    more.append(q)
# A libargon2 point with no libsodium twin: Ratio NA.
lone = copy.deepcopy(more[1])
lone["t"] = 2
more.append(lone)
d["points"] = pts + more
json.dump(d, open(sys.argv[2], "w"))
PY

expect_status 0 "show" -- "$P" bench --show "$TMP/two.json"
[ "$(grep -c '^Method ' "$TMP/out")" = 1 ] && ok "one table" || bad "$(grep -c '^Method ' "$TMP/out") tables"
awk '/^Method /{t=1; next} t && /^-/ {next} t && NF == 0 {exit} t {print}' "$TMP/out" >"$TMP/rows"
[ "$(wc -l <"$TMP/rows")" -eq 13 ] && ok "13 rows" || bad "$(wc -l <"$TMP/rows") rows"
awk '{print $NF}' "$TMP/rows" | grep -vxE '[0-9]+\.[0-9]{2}|NA' >"$TMP/notnum"
[ ! -s "$TMP/notnum" ] && ok "Ratio: numbers or NA only" || bad "Ratio: $(head -3 "$TMP/notnum" | tr '\n' ' ')"
grep -qi noisy "$TMP/rows" && bad "noisy inside the table" || ok "no noise in the table"
awk '{print $1, $NF}' "$TMP/rows" | grep -c '^libargon2.Argon2id 1.25$' | grep -qx 6 && ok "libargon2 at 1.25 of libsodium" || bad "ratios: $(awk '{print $NF}' "$TMP/rows" | tr '\n' ' ')"
grep -q 'libargon2.Argon2id  8 MiB       2 .* NA$' "$TMP/rows" && ok "no baseline: NA" || bad "no NA row"
python3 - "$TMP/rows" <<'PY' && ok "each point's baseline first, the other backend under it" || bad "row order"
import sys
rows = [l.split() for l in open(sys.argv[1])]
pairs = [r for r in rows if r[3] != "2"]
for a, b in zip(pairs[0::2], pairs[1::2]):
    assert a[0] == "libsodium.Argon2id" and b[0] == "libargon2.Argon2id", (a, b)
    assert a[1:6] == b[1:6], (a, b)
PY
expect_stdout "warnings under the table" "Warnings:"
expect_stdout "the noisy point named" "  Noisy: libargon2.Argon2id m=8 MiB t=1 p=1 k=1: StdDev"
[ "$(grep -c '^  Noisy: ' "$TMP/out")" = 1 ] && ok "one warning" || bad "$(grep -c '^  Noisy: ' "$TMP/out") warnings"
tail -n +"$(grep -n '^Warnings:' "$TMP/out" | cut -d: -f1)" "$TMP/out" | grep -q '^Method ' && bad "warnings above the table" || ok "warnings after the table"

expect_status 0 "show --markdown" -- "$P" bench --show "$TMP/two.json" --markdown
awk -F'|' '/^\| lib/ { gsub(/ /, "", $(NF-1)); print $(NF-1) }' "$TMP/out" | grep -vxE '[0-9]+\.[0-9]{2}|NA' >"$TMP/notnum"
[ ! -s "$TMP/notnum" ] && ok "markdown Ratio: numbers or NA only" || bad "markdown Ratio: $(head -3 "$TMP/notnum" | tr '\n' ' ')"
[ "$(grep -c '^| Method ' "$TMP/out")" = 1 ] && ok "markdown: one table" || bad "markdown: tables"
expect_status 0 "show --baseline libargon2" -- "$P" bench --show "$TMP/two.json" --baseline libargon2
grep -q '^libsodium.Argon2id  8 MiB       1 .* 0.80$' "$TMP/out" && ok "baseline libargon2: libsodium at 0.80" || bad "baseline libargon2"
expect_status 3 "show: a missing file" -- "$P" bench --show "$TMP/nope.json"
expect_status 2 "show with a grid" -- "$P" bench --show "$TMP/two.json" --m 8MiB
# A saved run's strings with a terminal's escape sequences: shown as '?'.
python3 - "$TMP/two.json" "$TMP/esc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["cpu_model"] = "Evil\u001b]0;owned\u0007\u001b[2J CPU"
d["host"]["libsodium_version"] = "1.0\u001b[31m"
json.dump(d, open(sys.argv[2], "w"))
PY
expect_status 0 "show: escape sequences in the file" -- "$P" bench --show "$TMP/esc.json"
if LC_ALL=C grep -q "$(printf '\033')" "$TMP/out"; then
	bad "show: an escape byte from the file reached the terminal"
else
	grep -q "Evil?\]0;owned??\[2J CPU" "$TMP/out" && ok "show: control characters from the file shown as ?" ||
		bad "show: $(grep '^Host' "$TMP/out")"
fi

# A real run with both backends (small): one table.
expect_status 0 "both backends" -- "$P" bench --m 2MiB,4MiB --t 1 --repeats 2 --no-json -q
[ "$(grep -c '^Method ' "$TMP/out")" = 1 ] && ok "both backends: one table" || bad "both backends: $(grep -c '^Method ' "$TMP/out") tables"
awk '/^Method /{t=1; next} t && /^-/ {next} t && NF == 0 {exit} t {print $NF}' "$TMP/out" | grep -vxE '[0-9]+\.[0-9]{2}|NA' >"$TMP/notnum"
[ ! -s "$TMP/notnum" ] && ok "both backends: Ratio numeric" || bad "both backends: Ratio $(cat "$TMP/notnum")"
finish
