#!/usr/bin/env bash
# pwtune bench: the table, the JSON it writes (checked field by field), the
# CSV, points over the memory budget skipped with the reason, presets, a
# killed benchmark child, and bad options. m stays at 16 MiB or less.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

expect_status 0 "grid" -- "$PWTUNE" bench --m 4MiB,8MiB --t 1 --concurrency 1,2 \
	--repeats 3 --json "$TMP/grid.json" --csv "$TMP/grid.csv" -q
expect_stdout "grid: libsodium table" "libsodium.Argon2id"
expect_stdout "grid: libargon2 table" "libargon2.Argon2id"
expect_stdout "grid: columns" "Method              MemorySize  Iterations  Parallelism  Concurrency      Mean"
expect_stdout "grid: says where the JSON went" "Results written to $TMP/grid.json"
# Without --memory-max the budget says, in words, what set it.
grep -Eq "memory budget [0-9.]+ [KMGT]iB \((half of MemAvailable|half of what the cgroup leaves)\)" "$TMP/out" &&
	ok "grid: the budget says what set it" ||
	bad "grid: the budget line: $(grep 'memory budget' "$TMP/out")"
python3 - "$TMP/grid.json" <<'PY' && ok "grid: JSON schema" || bad "grid: JSON schema"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "pwtune-bench/1", d["schema"]
assert d["profile"] == "custom"
assert d["created"].endswith("Z") and "T" in d["created"]
h = d["host"]
for k in ("host_id", "fingerprint", "cpu_model", "cpu_flags", "online_cpus",
          "affinity_cpus", "cpu_quota", "effective_cpus", "cgroup_version",
          "mem_total", "mem_available", "swap_total", "cgroup_mem_limit",
          "kernel", "libsodium_version", "libargon2_version"):
    assert k in h, k
assert len(h["host_id"]) == 32 and len(h["fingerprint"]) == 32
assert h["effective_cpus"] >= 1
assert d["budget"]["memory_bytes"] > 0
assert d["budget"]["source"] in ("memavailable", "cgroup", "config")
pts = d["points"]
assert len(pts) == 8, len(pts)   # 2 backends x 2 sizes x 2 concurrencies
seen = set()
for p in pts:
    assert p["status"] == "ok", p
    assert p["variant"] == "argon2id" and p["t"] == 1 and p["p"] == 1
    seen.add((p["backend"], p["m_kib"], p["k"]))
    s = p["stats"]
    assert s["n"] == 3 * p["k"] == len(p["samples_ms"]), (s["n"], p["k"])
    assert 0 < s["min_ms"] <= s["median_ms"] <= s["max_ms"]
    assert s["min_ms"] <= s["mean_ms"] <= s["max_ms"]
    assert s["p95_ms"] <= s["max_ms"] and s["stddev_ms"] >= 0
    assert abs(sum(p["samples_ms"]) / len(p["samples_ms"]) - s["mean_ms"]) < 1e-3
    assert p["rounds"] == 3 and p["throughput_per_s"] > 0
    assert p["peak_rss_kib"] >= p["m_kib"] * p["k"]
    assert set(p["noise"]) >= {"load_before", "load_after", "steal_pct", "noisy", "remeasured"}
assert seen == {(b, m, k) for b in ("libsodium", "libargon2")
                for m in (4096, 8192) for k in (1, 2)}, seen
PY
[ "$(wc -l <"$TMP/grid.csv")" -eq 9 ] && ok "grid: CSV has 8 rows" || bad "grid: CSV rows"
head -1 "$TMP/grid.csv" | grep -q '^backend,variant,version,m_kib,t,p,k' && ok "grid: CSV header" || bad "grid: CSV header"

# Over the memory budget: skipped, and the reason given.
expect_status 0 "budget" -- "$PWTUNE" bench --memory-max 12MiB --m 8MiB,16MiB \
	--t 1 --backend libsodium --repeats 2 --json "$TMP/budget.json" -q
expect_stdout "budget: says what was skipped" "Not measured:"
expect_stdout "budget: says why" "needs 16 MiB for 1 hash at once, over the memory budget of 12 MiB"
expect_stdout "budget: names the cap" "memory budget 12 MiB (the cap asked)"
python3 - "$TMP/budget.json" <<'PY' && ok "budget: JSON marks it skipped" || bad "budget: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
st = {p["m_kib"]: p["status"] for p in d["points"]}
assert st == {8192: "ok", 16384: "skipped"}, st
assert d["budget"] == {"memory_bytes": 12 << 20, "source": "config"}, d["budget"]
PY

# Presets, and the default file name.
expect_status 0 "preset" -- "$PWTUNE" bench --preset OWASP-5 --repeats 2 -q
expect_stdout "preset: the table" "7 MiB       5"
ls "$TMP"/bench_*.json >/dev/null 2>&1 && ok "preset: default bench_<time>.json" || bad "no default JSON file"
expect_status 0 "bcrypt preset" -- "$PWTUNE" bench --preset Bcrypt10 --repeats 2 --no-json -q
expect_stdout "bcrypt preset: table" "libcrypt.bcrypt"
expect_status 0 "markdown" -- "$PWTUNE" bench --m 2MiB --t 1 --backend libsodium --repeats 2 --no-json --markdown -q
expect_stdout "markdown: right-aligned numbers" "-:|"
awk -F'|' '/^\|/ { print NF }' "$TMP/out" | sort -u | wc -l | grep -qx 1 && ok "markdown: every row has the same columns" || bad "markdown: ragged rows"
awk '/^\|/ { print length($0) }' "$TMP/out" | sort -u | wc -l | grep -qx 1 && ok "markdown: rows line up" || bad "markdown: rows do not line up"
expect_status 0 "list presets" -- "$PWTUNE" bench --list-presets
expect_stdout "list presets: RFC 9106" "RFC9106-second"

# A benchmark child killed from outside: that point is reported, the run
# goes on and the parent finishes.
"$PWTUNE" bench --m 16MiB --t 40 --backend libargon2,libsodium --repeats 3 \
	--json "$TMP/killed.json" -q >"$TMP/killed.out" 2>&1 &
parent=$!
child=""
for _ in $(seq 100); do
	child=$(pgrep -P "$parent" | head -1)
	[ -n "$child" ] && break
	sleep 0.05
done
# Skip the effective-parallelism probe: wait for a child of the grid.
sleep 1
child=$(pgrep -P "$parent" | head -1)
[ -n "$child" ] && kill -9 "$child"
wait "$parent"
rc=$?
[ "$rc" -eq 0 ] && ok "killed child: parent exits 0" || bad "killed child: parent exit $rc"
grep -q "killed by SIGKILL" "$TMP/killed.out" && ok "killed child: reported" || { bad "killed child: not reported"; cat "$TMP/killed.out"; }
python3 - "$TMP/killed.json" <<'PY' && ok "killed child: other point measured" || bad "killed child: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
st = sorted(p["status"] for p in d["points"])
assert st == ["killed", "ok"], st
PY

# Bad options.
expect_status 2 "m = 0" -- "$PWTUNE" bench --m 0
expect_stderr "m = 0: named" "pwtune bench: --m must be a list of sizes such as 64MiB,1GiB (a bare number is KiB), from 1 KiB to just under 4 TiB, not 0"
expect_status 2 "unknown preset" -- "$PWTUNE" bench --preset Nope
expect_stderr "unknown preset: named" "pwtune bench: --preset must be a preset that pwtune bench --list-presets lists, not Nope"
expect_status 2 "unknown profile" -- "$PWTUNE" bench --profile slow
expect_status 2 "preset and grid" -- "$PWTUNE" bench --preset OWASP-1 --m 8MiB
expect_stderr "preset and grid: named" "choose one of --profile, --preset and a grid"
# A variant the profile would not measure: refused before any hash.
expect_status 2 "variant with the quick profile" -- "$PWTUNE" bench --profile quick --variant argon2i --db "$TMP/variant.db"
expect_stderr "variant with the quick profile: named" "pwtune bench: --variant goes with a grid (--m, --t): the profiles measure argon2id, as pwtuned's runs do"
[ ! -e "$TMP/variant.db" ] && ok "variant with the quick profile: no store made" || bad "variant with the quick profile: a store was made"
expect_status 2 "variant with a preset" -- "$PWTUNE" bench --preset OWASP-1 --variant argon2i
expect_stderr "variant with a preset: named" "--variant goes with a grid (--m, --t): a preset has its own variant"
expect_status 2 "k over the cap" -- "$PWTUNE" bench --concurrency 65
expect_status 2 "unknown backend" -- "$PWTUNE" bench --backend openssl
expect_status 2 "unknown option" -- "$PWTUNE" bench --frobnicate
finish
