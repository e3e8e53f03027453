#!/usr/bin/env bash
# pwtune recommend: from a saved quick run (tests/data/quick-run.json), the
# answer and its JSON; an impossible target; bad options; every snippet
# parses in its language; a store written by bench --db gives the same
# answer as the JSON file of the same run.
. "$(dirname "$0")/lib.sh"
RUN=${RUN:?RUN must name tests/data/quick-run.json}

expect_status 0 "250 ms" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN"
expect_stdout "250 ms: parameters" "m = "
expect_stdout "250 ms: PHC prefix" 'PHC prefix:  $argon2id$v=19$m='
expect_stdout "250 ms: prediction" "Predicted:"
expect_stdout "250 ms: capacity" "Capacity:"
expect_stdout "250 ms: floor" "Floor:       owasp met"
expect_stdout "250 ms: attacker" "guesses per second on one GPU"
expect_stdout "250 ms: provenance" "leave-one-out error median"
# A stack on libargon2, which this run did not measure: its snippet says
# it is not its own answer (after PHP's opening tag).
sed -n '/^--- php$/,/^--- /p' "$TMP/out" >"$TMP/php.txt"
if [ "$(sed -n 2p "$TMP/php.txt")" = "<?php" ] && sed -n 3p "$TMP/php.txt" | grep -q "^// Not this runtime's answer: php stands on libargon2"; then
	ok "250 ms: the php snippet says it is not php's own answer"
else
	bad "250 ms: php snippet: $(head -3 "$TMP/php.txt" | tr '\n' '|')"
fi

# The engine's notes and errors name this command's options, not the
# API's parameters (memory_max, concurrency).
expect_status 0 "8 at once in 128 MiB" -- "$PWTUNE" recommend --target-ms 250 \
	--concurrency 8 --memory-max 128MiB --from "$RUN"
expect_stdout "... its note names --memory-max" "more memory (--memory-max) or fewer hashes"
! grep -q "memory_max" "$TMP/out" && ok "... and not memory_max" || bad "the note says memory_max"
expect_status 2 "64 at once in 128 MiB: under the floor" -- "$PWTUNE" recommend \
	--target-ms 250 --concurrency 64 --memory-max 128MiB --from "$RUN"
expect_stderr "... the error names the options" "raise --memory-max or lower --concurrency"

expect_status 0 "json" -- "$PWTUNE" recommend --target-ms 250 --concurrency 2 \
	--memory-max 1GiB --from "$RUN" --json
cp "$TMP/out" "$TMP/answer.json"
python3 - "$TMP/answer.json" <<'PY' && ok "json: fields and invariants" || bad "json: fields"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["met"] is True and a["variant"] == "argon2id"
assert a["m_kib"] % 1024 == 0 and a["t"] >= 1 and a["p"] == 1
assert a["phc_prefix"] == "$argon2id$v=19$m=%d,t=%d,p=%d" % (a["m_kib"], a["t"], a["p"])
l = a["latency"]
assert l["predicted_ms"] <= l["target_ms"] == 250 and l["concurrency"] == 2
assert l["percentile"] == 95 and l["predicted_p50_ms"] <= l["predicted_ms"]
assert a["memory_in_flight_kib"] == 2 * a["m_kib"] <= 1 << 20
assert abs(a["capacity_per_s"] - 2000 / l["predicted_p50_ms"]) < 1e-3
assert a["floor"] == {"name": "owasp", "met": True, "decided": False}
assert a["libsodium"] == {"opslimit": a["t"], "memlimit": a["m_kib"] * 1024,
    "memlimit_bytes": a["m_kib"] * 1024}
assert a["predicted"] == {"percentile": 95, "ms": l["predicted_ms"], "p50_ms": l["predicted_p50_ms"]}
assert a["attacker"]["gpu_guesses_per_s"] > 0 and "960 GB/s" in a["attacker"]["assumptions"]
assert set(a["snippets"]) == {"php", "python", "go", "node", "java", "c"}
assert 0 <= a["model"]["loo_median_error"] <= a["model"]["loo_worst_error"] < 0.5
# node-argon2 takes t = 2 at least: a snippet of a t = 1 answer it has
# none of its own for (no libargon2 here) keeps m x t, and runs.
import re
node = a["snippets"]["node"]
nt = int(re.search(r"timeCost: (\d+)", node).group(1))
nm = int(re.search(r"memoryCost: (\d+)", node).group(1))
assert nt >= 2, node
if a["t"] < 2:
    assert "node-argon2 takes t = 2 at least" in node, node
    assert nm * nt <= a["m_kib"] * a["t"] and nm % 1024 == 0, (nm, nt)
PY

# Every snippet parses in its language (the checkers make deps installs).
python3 - "$TMP/answer.json" "$TMP" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
ext = {"php": "php", "python": "py", "go": "go", "node": "js", "java": "java", "c": "c"}
for lang, code in a["snippets"].items():
    open("%s/snippet.%s" % (sys.argv[2], ext[lang]), "w").write(code)
PY
expect_status 0 "php snippet parses" -- php -l "$TMP/snippet.php"
expect_status 0 "python snippet parses" -- python3 -m py_compile "$TMP/snippet.py"
expect_status 0 "go snippet parses" -- gofmt -e -l "$TMP/snippet.go"
expect_status 0 "node snippet parses" -- node --check "$TMP/snippet.js"
expect_status 0 "c snippet compiles" -- cc -fsyntax-only -Wall -Werror "$TMP/snippet.c"
grep -q "new Argon2PasswordEncoder(16, 32, 1, " "$TMP/snippet.java" && ok "java snippet" || bad "java snippet"
# Under a memory limit, memory-first keeps the limit and raises t.
expect_status 0 "memory-limited" -- "$PWTUNE" recommend --target-ms 500 --from "$RUN" --json --backend libsodium --memory-max 64MiB
python3 - "$TMP/out" <<'PY' && ok "memory-limited: m at the limit, t above 1" || bad "memory-limited"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["m_kib"] == 65536 and a["t"] > 1, (a["m_kib"], a["t"])
PY
expect_status 2 "memory-max over 1 TiB refused" -- "$PWTUNE" recommend --target-ms 500 --from "$RUN" --memory-max 2TiB
expect_stderr "memory-max over 1 TiB: names the flag" "--memory-max"
# A snippet that could not parse makes the check fail (the checker works).
printf '<?php $x = ;\n' >"$TMP/broken.php"
expect_status 255 "php -l rejects a broken file" -- php -l "$TMP/broken.php"

# An impossible target: exit 1 and the closest admissible answer.
expect_status 1 "1 ms" -- "$PWTUNE" recommend --target-ms 1 --floor owasp --from "$RUN"
expect_stderr "1 ms: says so" "cannot be met above the owasp floor"
expect_stdout "1 ms: closest admissible" "Closest admissible answer"
expect_stdout "1 ms: OWASP's last row" 'm=7168,t=5,p=1'
expect_status 1 "1 ms json" -- "$PWTUNE" recommend --target-ms 1 --from "$RUN" --json
python3 -c "import json,sys; a=json.load(open('$TMP/out')); assert a['met'] is False and 'closest admissible' in a['error']" \
	&& ok "1 ms json: met false with the reason" || bad "1 ms json"

# needs-rehash and presets.
expect_status 0 "check" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" \
	--check '$argon2id$v=19$m=7168,t=5,p=1$c29tZXNhbHRzb21lc2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA'
expect_stdout "check: both semantics" "needs-rehash of the hash given: yes (exact match"
# The parameters alone (what --format phc prints) are checked too.
expect_status 0 "check of the parameters alone" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" \
	--check '$argon2id$v=19$m=7168,t=5,p=1'
expect_stdout "check of the parameters alone: answered" "needs-rehash of the hash given: yes (exact match"
PHC=$("$PWTUNE" recommend --target-ms 250 --from "$RUN" --format phc)
expect_status 0 "check of the answer's own --format phc" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" --check "$PHC"
expect_stdout "... no rehash" "needs-rehash of the hash given: no"
expect_status 2 "check of a prefix cut in p" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" --check '$argon2id$v=19$m=7168,t=5'
expect_stderr "... naming the missing field" "missing field p"
# Named by mistake: another JSON file, a URL.
echo '{"a": 1}' >"$TMP/other.json"
expect_status 2 "--from another JSON file: 2" -- "$PWTUNE" recommend --target-ms 250 --from "$TMP/other.json"
expect_stderr "... saying it is not a report" "not a pwtune report (no \"schema\": \"pwtune-bench/1\""
expect_status 2 "--from a URL: 2" -- "$PWTUNE" recommend --target-ms 250 --from http://127.0.0.1:8421
expect_stderr "... saying to ask the daemon" "not a URL: ask the daemon itself"
expect_status 0 "presets" -- "$PWTUNE" recommend --presets --from "$RUN"
expect_stdout "presets: OWASP-2" "OWASP-2"
expect_stdout "presets: RFC 9106 first is extrapolated" "extrapolated"

# --verify measures the answer here and reports it beside the prediction.
expect_status 0 "verify" -- "$PWTUNE" recommend --target-ms 30 --floor none \
	--from "$RUN" --verify --json
python3 - "$TMP/out" <<'PY' && ok "verify: measured beside predicted" || bad "verify"
import json, sys
a = json.load(open(sys.argv[1]))
v = a["verified"]
assert v["measured_ms"] > 0 and 0 <= v["steps_down"] <= 3, v
PY
# --verify never steps t under what the library takes: a file whose
# libsodium Argon2i times are a tenth of this host's, so that the answer
# (t = 3, libsodium's least) is measured over its target and stepped down
# by m alone.
python3 - "$RUN" "$TMP/fast-a2i.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["points"] = [p for p in d["points"] if p["backend"] == "libsodium"]
for p in d["points"]:
    # t = 1 and 3 as t = 3 and 6 (libsodium's Argon2i takes 3 at least):
    # (1 + t) passes a hash, a tenth of the time.
    t = {1: 3, 3: 6}[p["t"]]
    f = (1 + t) / (1 + p["t"]) / 10
    p["variant"], p["t"] = "argon2i", t
    p["stats"] = {k: (v * f if k.endswith("_ms") else v) for k, v in p["stats"].items()}
    p["samples_ms"] = [v * f for v in p.get("samples_ms", [])]
json.dump(d, open(sys.argv[2], "w"))
PY
"$PWTUNE" recommend --target-ms 5 --floor none --variant argon2i --backend libsodium \
	--memory-max 64MiB --from "$TMP/fast-a2i.json" --verify --json >"$TMP/out" 2>"$TMP/err"
python3 - "$TMP/out" "$TMP/err" <<'PY' && ok "verify: stepped down by m, never under libsodium's t = 3" || { bad "verify stepped t under 3"; cat "$TMP/err"; }
import json, sys
a = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
assert "needs t >= 3" not in err, err
assert a["t"] == 3 and a["verified"]["steps_down"] >= 1, (a["t"], a.get("verified"))
PY
# bench --db stores the model beside the run.
expect_status 0 "bench --db stores the model" -- "$PWTUNE" bench --m 2MiB,4MiB --t 1,2 \
	--backend libsodium --repeats 2 --db "$TMP/model.db" --no-json -q
[ "$(sqlite3 "$TMP/model.db" 'SELECT count(*) FROM models')" = 1 ] && ok "one model curve stored" || bad "models not stored"

# Bad options.
expect_status 2 "no target" -- "$PWTUNE" recommend --from "$RUN"
expect_stderr "no target: named" "--target-ms is required"
expect_status 2 "percentile 90" -- "$PWTUNE" recommend --target-ms 100 --percentile 90 --from "$RUN"
expect_status 2 "floor unknown" -- "$PWTUNE" recommend --target-ms 100 --floor nist --from "$RUN"
# Nothing measured that answers it: a negative answer, and what would.
expect_status 1 "p never measured" -- "$PWTUNE" recommend --target-ms 100 --parallelism 4 --from "$RUN"
expect_stderr "p never measured: named, libsodium's p = 1 said" "no curve of this host's model has p = 4: libsodium computes p = 1 only, and libargon2 was not measured at p = 4: ask for p = 1 (pwtune bench --backend libargon2 --variant argon2id --p 4 --m 16MiB,64MiB,256MiB --t 1,3 measures them: with --db STORE into that store's model (a running pwtuned reads it on SIGHUP), with --json FILE for pwtune recommend --from FILE)"
expect_status 2 "libsodium asked for by name with p = 4: a usage error" -- "$PWTUNE" recommend --target-ms 100 --parallelism 4 --backend libsodium --from "$RUN"
expect_stderr "libsodium with p = 4: named" "--parallelism 4 with --backend libsodium: libsodium computes p = 1 only"
expect_status 1 "a variant never measured" -- "$PWTUNE" recommend --target-ms 100 --variant argon2i --from "$RUN"
expect_stderr "a variant never measured: named, and what would measure it" "pwtune recommend: this host's model has no argon2i measurements of libsodium (its runs measure argon2id): ask for argon2id (pwtune bench --backend libsodium --variant argon2i --p 1 --m 16MiB,64MiB,256MiB --t 3,6 measures them: with --db STORE into that store's model (a running pwtuned reads it on SIGHUP), with --json FILE for pwtune recommend --from FILE)"
expect_status 1 "a variant never measured, a stack's" -- "$PWTUNE" recommend --target-ms 100 --variant argon2i --stack python-pynacl --from "$RUN"
expect_stderr "a variant never measured, a stack's: named" "python-pynacl: this host's model has no argon2i measurements of libsodium"
expect_status 1 "a variant the stack's call has not" -- "$PWTUNE" recommend --target-ms 100 --variant argon2i --stack php-sodium --from "$RUN"
expect_stderr "... named, with what it hashes" "php-sodium: PHP sodium_crypto_pwhash_str() hashes argon2id only, not argon2i: ask for argon2id"
printf '{"schema": "pwtune-bench/0"}' >"$TMP/bad.json"
expect_status 2 "bad file" -- "$PWTUNE" recommend --target-ms 100 --from "$TMP/bad.json"
expect_stderr "bad file: named" "schema pwtune-bench/0"

# bench --db, then recommend --db: the same answer as from the JSON file.
expect_status 0 "bench --db" -- "$PWTUNE" bench --m 8MiB,16MiB,32MiB --t 1,3 \
	--backend libsodium --repeats 2 --db "$TMP/s.db" --json "$TMP/s.json" -q
"$PWTUNE" recommend --target-ms 60 --floor none --db "$TMP/s.db" --json >"$TMP/a.json" 2>"$TMP/err"
rc_a=$?
"$PWTUNE" recommend --target-ms 60 --floor none --from "$TMP/s.json" --json >"$TMP/b.json"
rc_b=$?
python3 - "$TMP/a.json" "$TMP/b.json" <<PY && ok "db and json: the same answer" || { bad "db and json differ ($rc_a/$rc_b)"; cat "$TMP/err"; }
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in ("m_kib", "t", "p", "latency", "phc_prefix", "attacker"):
    assert a[k] == b[k], (k, a[k], b[k])
assert a["model"]["run_id"] >= 1 and b["model"]["run_id"] == 0
PY
# With --db, the verification is stored beside the run.
expect_status 0 "verify --db" -- "$PWTUNE" recommend --target-ms 30 --floor none \
	--db "$TMP/s.db" --verify --json
[ "$(sqlite3 "$TMP/s.db" 'SELECT count(*) FROM verifications WHERE measured_ms > 0 AND target_ms = 30')" = 1 ] \
	&& ok "verify --db: stored" || bad "verify --db: not stored"
# The daemon's checks of the run (measured answers) are in the store's
# model too: twice the curve where they measured, a smaller answer.
python3 - "$TMP/s.db" "$TMP/a.json" <<'PY' && ok "--db: three checks stored" || bad "--db: checks not stored"
import json, sqlite3, sys
a = json.load(open(sys.argv[2]))
db = sqlite3.connect(sys.argv[1])
run, host = db.execute("SELECT id, host_id FROM runs ORDER BY id DESC LIMIT 1").fetchone()
p50 = a["latency"]["predicted_p50_ms"]
for f in (1, 2, 4):
    m = a["m_kib"] // f // 1024 * 1024
    ms = 2 * p50 * m / a["m_kib"]
    db.execute("INSERT INTO observations (host_id, stack, variant, m_kib, t, p, k, nsamples, "
               "median_ms, p95_ms, predicted_ms, model_run, samples, created, source) VALUES "
               "(?, 'libsodium', 'argon2id', ?, 1, 1, 1, 10, ?, ?, ?, ?, ?, "
               "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), 'check')",
               (host, m, ms, ms, ms / 2, run, json.dumps([ms] * 10)))
db.commit()
PY
"$PWTUNE" recommend --target-ms 60 --floor none --db "$TMP/s.db" --json >"$TMP/c.json" 2>"$TMP/err"
python3 - "$TMP/a.json" "$TMP/c.json" <<'PY' && ok "--db: the checks make the answer smaller, as in the daemon" || { bad "--db: the checks were not taken"; cat "$TMP/err"; }
import json, sys
a, c = (json.load(open(f)) for f in sys.argv[1:3])
assert c["m_kib"] * c["t"] <= 0.7 * a["m_kib"] * a["t"], (a["m_kib"], a["t"], c["m_kib"], c["t"])
PY
# A grid of another variant stored in the same store adds its curve to the
# store's model: the default question is still answered from the run
# before it, and the grid's variant from the grid.
expect_status 0 "bench --db: an argon2i grid into the store" -- "$PWTUNE" bench --m 8MiB,16MiB --t 1,3 \
	--backend libsodium --variant argon2i --repeats 2 --db "$TMP/s.db" --no-json -q
expect_status 0 "the default question after the grid" -- "$PWTUNE" recommend --target-ms 60 --floor none \
	--db "$TMP/s.db" --json
cp "$TMP/out" "$TMP/d.json"
expect_status 0 "argon2i after the grid" -- "$PWTUNE" recommend --target-ms 60 --floor none \
	--variant argon2i --db "$TMP/s.db" --json
python3 - "$TMP/a.json" "$TMP/c.json" "$TMP/d.json" "$TMP/out" "$TMP/s.db" <<'PY' && ok "--db: the grid adds argon2i, the model and its default answer stay the run's" || bad "--db: the grid replaced or moved the model"
import json, sqlite3, sys
a, c, d, i = (json.load(open(f)) for f in sys.argv[1:5])
grid = sqlite3.connect(sys.argv[5]).execute("SELECT max(id) FROM runs").fetchone()[0]
run = a["model"]["run_id"]
assert grid > run, (grid, run)
assert d["model"]["run_id"] == run and d["phc_prefix"].startswith("$argon2id$"), d["model"]
# The default answer, its errors and its verdict as before the grid.
assert (d["m_kib"], d["t"]) == (c["m_kib"], c["t"]), (d["m_kib"], d["t"], c["m_kib"], c["t"])
for k in ("loo_median_error", "loo_worst_error", "quality", "quality_reason"):
    assert d["model"][k] == c["model"][k], (k, d["model"][k], c["model"][k])
assert d["model"]["curve"]["run_id"] == run and d["model"]["curve"]["variant"] == "argon2id", d["model"]["curve"]
assert i["model"]["run_id"] == run and i["phc_prefix"].startswith("$argon2i$"), i["phc_prefix"]
# The argon2i answer names the grid's curve, and says it is too small.
assert i["model"]["curve"] == {"backend": "libsodium", "variant": "argon2i", "p": 1, "run_id": grid,
    "loo_median_error": None, "loo_worst_error": None}, i["model"]["curve"]
assert any(("Sized on the libsodium argon2i p = 1 curve of run %d" % grid) in n and "too few" in n
    for n in i["notes"]), i["notes"]
php = [s for s in i["stacks"] if s["name"] == "php"][0]
assert php["why"] == "libargon2 argon2i not measured yet", php
PY
# The text says which curve, from which run, and how well it is known;
# the run's own points alone in its Model line.
expect_status 0 "argon2i after the grid, as text" -- "$PWTUNE" recommend --target-ms 60 --floor none \
	--variant argon2i --db "$TMP/s.db"
grid=$(sqlite3 "$TMP/s.db" "SELECT max(id) FROM runs")
expect_stdout "... the grid's curve named" "Curve:       libsodium argon2i p = 1, from run $grid ("
expect_stdout "... its error unknown" "leave-one-out error unknown (too few points)"
own=$(sqlite3 "$TMP/s.db" "SELECT count(*) FROM points WHERE status = 'ok' AND run_id = (SELECT min(id) FROM runs)")
expect_stdout "... the Model line counts the run's own points" "($own points measured)"
# A point of the grid the store cannot read: its curve is left out, said.
sqlite3 "$TMP/s.db" ".backup '$TMP/s2.db'"
sqlite3 "$TMP/s2.db" "UPDATE points SET data = '{}' WHERE run_id = (SELECT max(id) FROM runs) AND seq = 0"
expect_status 1 "an unreadable point of the grid: argon2i not measured" -- "$PWTUNE" recommend --target-ms 60 \
	--floor none --variant argon2i --db "$TMP/s2.db"
expect_stderr "... the store says why" "stored point 0 unreadable"
expect_stderr "... and what it left out" "its libsodium argon2i p = 1 curve is left out of the model"
# Stacks: the default answer lists every stack's (the API's JSON); --stack
# answers for one, checked and named; an unknown name is exit 2 with the
# known names; a stack on a library the run did not measure is exit 1.
expect_status 0 "stacks: the default answer's table" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN"
expect_stdout "stacks: the table, and what it holds for" "Stacks (this answer holds for libsodium"
expect_stdout "a target met: the headroom it was searched under" "% headroom for the model's error"
expect_stdout "stacks: php, whose library is not measured" "php                  libargon2 not measured yet"
expect_status 0 "stacks: json" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" --json
python3 - "$TMP/out" <<'PY' && ok "stacks: json has for and every stack" || bad "stacks: json"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["for"] == "libsodium"
names = [s["name"] for s in a["stacks"]]
assert names == ["libsodium", "libargon2", "php", "php-sodium", "python-argon2-cffi",
    "python-pynacl", "go", "node-argon2", "java-bouncycastle"], names
s = {s["name"]: s for s in a["stacks"]}
assert s["php"]["available"] is False and s["php"]["why"] == "libargon2 not measured yet"
assert s["php-sodium"]["m_kib"] == a["m_kib"] and "%d * 1024" % a["m_kib"] in s["php-sodium"]["snippet"]
PY
expect_status 2 "stack unknown: exit 2" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" --stack cobol
expect_stderr "stack unknown: the known names" "unknown stack cobol: known are libsodium, libargon2, php, php-sodium"
expect_stderr "stack unknown: java-bouncycastle listed" "java-bouncycastle"
expect_status 2 "stack node (not a name): exit 2" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" --stack node
expect_stderr "... asking whether node-argon2 was meant" "unknown stack node (did you mean node-argon2?): known are"
expect_status 2 "stack with a control byte: exit 2" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" --stack "$(printf 'a\033b')"
expect_stderr "... shown escaped, no suggestion" 'unknown stack a\x1bb: known are'
expect_status 2 "an empty stack: exit 2" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" --stack ""
expect_stderr "... said to be empty" 'unknown stack (empty): known are'
expect_status 2 "stack unknown in a store: exit 2" -- "$PWTUNE" recommend --target-ms 250 --db "$TMP/s.db" --stack cobol
expect_stderr "stack unknown in a store: named" "unknown stack cobol"
expect_status 1 "stack php without libargon2 measured: exit 1" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" --stack php
expect_stderr "... saying so" "php stands on libargon2, which this host's model has not measured yet"
expect_status 2 "stack with --verify: exit 2" -- "$PWTUNE" recommend --target-ms 250 --from "$RUN" --stack php-sodium --verify
expect_status 0 "bench --db with libargon2" -- "$PWTUNE" bench --m 8MiB,16MiB,32MiB --t 1,3 \
	--backend libsodium,libargon2 --repeats 2 --db "$TMP/a2.db" -q --json "$TMP/a2.json"
# 250 ms: the owasp floor (7 MiB, t = 5) fits under it even when the seed
# above was measured on a host busy with other tests.
expect_status 0 "stack php" -- "$PWTUNE" recommend --target-ms 250 --db "$TMP/a2.db" --stack php --json
python3 - "$TMP/out" <<'PY' && ok "stack php: its own answer and snippet" || { bad "stack php"; head -c 600 "$TMP/out"; }
import json, sys
a = json.load(open(sys.argv[1]))
assert a["for"] == "php" and a["backend"] == "libargon2", (a["for"], a["backend"])
assert "'memory_cost' => %d," % a["m_kib"] in a["snippet"]
assert a["how"] == "library measured, runtime not probed here"
assert a["answered_as"] is None, a["answered_as"]
PY
expect_status 0 "stack php: text" -- "$PWTUNE" recommend --target-ms 250 --db "$TMP/a2.db" --stack php
expect_stdout "stack php: text names the stack" "Stack:       php (library measured, runtime not probed here)"
expect_stdout "stack php: the header names php and the library it hashes through" \
	"at once (php through libargon2, floor owasp, memory-first)"
expect_stdout "from a store: says the daemon's answer can differ, and why" \
	"Daemon:      this host's pwtuned, when it serves this run (GET /v1/model), also"
expect_stdout "stack php: text has its snippet" "password_hash(\$password, PASSWORD_ARGON2ID"
! grep -q "libsodium:   opslimit" "$TMP/out" && ok "stack php: text gives no libsodium figures (PHP hashes through libargon2)" || bad "stack php: text shows libsodium's opslimit"
expect_status 0 "stack go: text" -- "$PWTUNE" recommend --target-ms 250 --db "$TMP/a2.db" --stack go
expect_stdout "stack go: the header says go is sized on libargon2's curve (its own code)" \
	"at once (go sized on libargon2, floor owasp, memory-first)"
expect_status 0 "stack php-sodium: text" -- "$PWTUNE" recommend --target-ms 250 --db "$TMP/a2.db" --stack php-sodium
expect_stdout "stack php-sodium: text gives libsodium's figures" "libsodium:   opslimit"
# node-argon2 refuses t = 1: the default answer at t = 1 has no ratio
# there, and a note sends to its own answer. 15 ms: t = 1 within the
# 32 MiB grid's reach on a fast host (at 30 ms a quiet host went to t = 2).
expect_status 0 "stacks: a default answer at t = 1" -- "$PWTUNE" recommend --target-ms 15 --floor none --db "$TMP/a2.db" --json
python3 - "$TMP/out" <<'PY' && ok "stacks: node-argon2 refuses the default's t = 1, said" || bad "stacks: node-argon2 and the default's t = 1"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["t"] == 1, j["t"]
node = [s for s in j["stacks"] if s["name"] == "node-argon2"][0]
assert node["default_answer_ratio"] is None, node["default_answer_ratio"]
assert "node-argon2 refuses the default answer's t = 1 (it takes t = 2 at least): ask with --stack node-argon2 for its own." in j["notes"], j["notes"]
assert not any(n.startswith("In ") and "node-argon2" in n.split(" the default")[0] for n in j["notes"]), j["notes"]
PY
# libargon2 measured at p = 2 too: its auto answer on two idle cores has
# p = 2, which the three libsodium stacks cannot compute: one note.
python3 - "$TMP/a2.json" "$TMP/a2p.json" <<'PY' || bad "cannot make the p = 2 run"
import copy, json, sys
d = json.load(open(sys.argv[1]))
more = []
for p in d["points"]:
    if p["backend"] == "libargon2" and p["p"] == 1 and p["k"] == 1:
        q = copy.deepcopy(p)
        q["p"] = 2
        for k, v in q["stats"].items():
            if k.endswith("_ms"):
                q["stats"][k] = v * 0.6
        more.append(q)
d["points"] += more
json.dump(d, open(sys.argv[2], "w"))
PY
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["host"]["effective_cpus"] >= 2 else 1)' "$TMP/a2p.json"; then
	expect_status 0 "stacks: libargon2 at p = 2 (auto)" -- "$PWTUNE" recommend --target-ms 100 --backend libargon2 --floor none --from "$TMP/a2p.json"
	expect_stdout "stacks: the answer has p = 2" ", p = 2"
	expect_stdout "stacks: the three p = 1 stacks in one note" \
		"  - libsodium, php-sodium and python-pynacl cannot compute the default answer's p = 2 (p = 1 only): each has its own answer, ask with --stack NAME."
else
	echo "       one effective CPU here: no auto p = 2 to judge"
fi
# A store's run probed no runtime: the reason under no row, said once.
expect_status 0 "stacks: from a store" -- "$PWTUNE" recommend --target-ms 250 --db "$TMP/a2.db"
expect_stdout "stacks: why no row was probed, said once" "  (each stack: not probed in this run)"
! grep -q "^ *(not probed in this run)$" "$TMP/out" && ok "stacks: ... not under every row" ||
	bad "stacks: the same reason under every row"
# A stack the default answer is over the target in gets a note, which
# says how to ask here (--stack NAME; stack=NAME is the API's): libargon2
# made twice as slow, php is over.
python3 "$(dirname "$0")/../data/slow_backend.py" "$TMP/a2.json" "$TMP/a2x.json" libargon2 2 ||
	bad "cannot make the slow libargon2 run"
expect_status 0 "stacks: the default over the target in php" -- "$PWTUNE" recommend --target-ms 100 --floor none --from "$TMP/a2x.json"
# The stacks on libargon2's curve, none probed, take as long: one note
# names them all.
grep -Eq "^  - In (libargon2, )?php, python-argon2-cffi, go(, node-argon2)? and java-bouncycastle the default answer would take [0-9.]+ x the target \([0-9]+ ms at p95\): each has its own answer, ask with --stack NAME, or for PHP and Python hash through libsodium \(php-sodium, python-pynacl\)\.$" "$TMP/out" &&
	ok "stacks: one note names php and the stacks as slow, and how to ask here" ||
	bad "stacks: no one note for php and the stacks as slow: $(grep 'default answer' "$TMP/out")"
[ "$(grep -c 'the default answer would take' "$TMP/out")" = 1 ] &&
	ok "stacks: ... said once" || bad "stacks: the same figure said more than once"
! grep -q "^  Daemon:" "$TMP/out" && ok "from a run's file (--from): no daemon line" || bad "--from prints the daemon line"
! grep -q "stack=" "$TMP/out" && ok "stacks: no note names the API's stack=" || bad "stacks: a note says stack= to the CLI's user"
# Where the stack's own answer misses the target too (the owasp floor's
# least, 7 MiB and t = 5, takes longer than 5 ms in a libargon2 twice as
# slow), its note says so instead of sending the user to ask for it.
expect_status 1 "stacks: a target php's own answer cannot meet" -- "$PWTUNE" recommend --target-ms 5 --from "$TMP/a2x.json"
expect_stdout "stacks: php's note says its own answer cannot meet it either" \
	"and its own answer cannot meet it either (the closest admissible, m = 7168 KiB, t = 5, "
! grep -q "ask with --stack php\." "$TMP/out" && ok "stacks: ... and does not send the user to ask for it" ||
	bad "stacks: a note says to ask for php's answer, which misses the target too"
# A missed target was searched under no headroom: none is said.
! grep -q "headroom for the model" "$TMP/out" && ok "a missed target: no headroom line" ||
	bad "a missed target: the headroom line beside it"
# From cold: one target measured (engine/search.h), a few seconds. Small
# (at most 64 MiB, 40 ms, no floor) so that it stays quick under load.
expect_status 0 "from cold: measured" -- "$PWTUNE" recommend --target-ms 40 \
	--floor none --memory-max 64MiB --json -q
python3 - "$TMP/out" <<'PY' && ok "from cold: the answer was measured, and says how" || bad "from cold: the search's JSON"
import json, sys
a = json.load(open(sys.argv[1]))
s = a["search"]
assert a["met"] is True and a["backend"] == "libsodium", a
assert a["m_kib"] % 1024 == 0 and a["m_kib"] <= 64 * 1024 and a["t"] >= 1
assert 0 < s["measured_ms"] <= 40 and s["samples"] >= 1, s
assert 0 <= s["samples_near"] <= s["samples"], s
assert isinstance(s["projected"], bool), s
assert s["hashes"] >= s["samples"] + 3 and s["steps"] >= 2, s
assert 0 <= s["uncertainty"] <= 1 and s["seconds"] > 0, s
assert s["stopped"] in ("in band", "memory cap", "grain", "out of steps", "floor"), s
assert s["stopped"] == "out of steps" or (s["stopped"] == "in band") == s["in_band"], s
assert s["stopped"] != "in band" or s["samples"] >= 6, s
# Only C's snippet (libsodium, what was measured) is the answer as it is;
# every other language says it is not its runtime's answer.
n = a["snippets"]
assert "(size_t)%d * 1024" % a["m_kib"] in n["c"] and "Not this" not in n["c"], n["c"]
for lang in ("php", "python", "go", "node", "java"):
    assert "Not this runtime's answer: measured with libsodium alone" in n[lang], (lang, n[lang])
assert "timeCost: 1," not in n["node"], n["node"]
open(sys.argv[1] + ".js", "w").write(n["node"])
PY
expect_status 0 "from cold: the node snippet parses" -- node --check "$TMP/out.js"
expect_status 0 "from cold: --format phc" -- "$PWTUNE" recommend --target-ms 30 \
	--floor none --memory-max 32MiB --format phc -q
grep -qxE '\$argon2id\$v=19\$m=[0-9]+,t=[0-9]+,p=1' "$TMP/out" &&
	ok "from cold: --format phc prints the prefix alone" ||
	bad "from cold: --format phc: $(head -c 200 "$TMP/out")"
expect_status 1 "from cold: a target under the floor is not met" -- \
	"$PWTUNE" recommend --target-ms 1 -q
expect_stderr "from cold: the closest admissible answer is named" \
	"cannot be met above the owasp floor"
expect_status 1 "from cold: a target under the floor, JSON" -- \
	"$PWTUNE" recommend --target-ms 1 -q --json
python3 - "$TMP/out" <<'PY' && ok "from cold: the floor decided the answer, and the JSON says so" || { bad "from cold: floor.decided"; head -c 800 "$TMP/out"; }
import json, sys
a = json.load(open(sys.argv[1]))
assert a["met"] is False, a["met"]
assert a["floor"] == {"name": "owasp", "met": True, "decided": True}, a["floor"]
assert (a["m_kib"], a["t"], a["p"]) == (7168, 5, 1), (a["m_kib"], a["t"])
assert a["search"]["stopped"] == "over the target" and a["search"]["measured_ms"] > 1, a["search"]
PY
expect_status 2 "--profile takes quick only" -- "$PWTUNE" recommend \
	--target-ms 250 --profile slow
expect_status 2 "--profile with --from" -- "$PWTUNE" recommend \
	--target-ms 250 --profile quick --from "$RUN"
# The quick profile from cold times no runtime: its table says whether
# each one is here (a fake php, probe.php there) or not (no probe.py),
# never "not installed" for a runtime it did not look for.
mkdir -p "$TMP/pd" "$TMP/bin"
printf '#!/bin/sh\nexit 1\n' >"$TMP/bin/php" && chmod 755 "$TMP/bin/php"
: >"$TMP/pd/probe.php"
expect_status 0 "from cold, the quick profile" -- env PATH="$TMP/bin:$PATH" \
	PWTUNE_PROBE_DIR="$TMP/pd" "$PWTUNE" recommend --target-ms 40 \
	--profile quick --memory-max 64MiB --floor none --json -q
python3 - "$TMP/out" "$TMP/pd" <<'PY' && ok "from cold: each runtime here or not, as found" || { bad "from cold: the stacks' how"; head -c 1500 "$TMP/out"; }
import json, sys
s = {s["name"]: s for s in json.load(open(sys.argv[1]))["stacks"]}
assert s["libsodium"]["how"] == "library measured here" and "why" not in s["libsodium"], s["libsodium"]
assert s["php-sodium"]["how"] == "library measured, runtime not probed here", s["php-sodium"]
assert s["php-sodium"]["why"] == "its runtime is here; pwtune recommend --stack php-sodium times it", s["php-sodium"]
assert s["python-pynacl"]["how"] == "library measured, runtime not installed here", s["python-pynacl"]
assert s["python-pynacl"]["why"] == "not installed: %s/probe.py not found" % sys.argv[2], s["python-pynacl"]
assert "POST the result to" in s["python-pynacl"]["snippet"], s["python-pynacl"]["snippet"]
PY
# --memory-max bounds what is measured as well: no process of the run
# holds much more than 64 MiB (the quick profile goes to 256 MiB, and k
# hashes at once, without it).
rss=$(python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
	env PATH="$TMP/bin:$PATH" PWTUNE_PROBE_DIR="$TMP/pd" "$PWTUNE" recommend \
	--target-ms 40 --profile quick --memory-max 64MiB --floor none -q)
read -r rc kib <<<"$rss"
[ "$rc" = 0 ] && [ "$kib" -lt $((112 * 1024)) ] &&
	ok "the quick profile under --memory-max 64MiB: the largest process held $((kib / 1024)) MiB" ||
	bad "the quick profile under --memory-max 64MiB: exit $rc, a process held $((kib / 1024)) MiB"
expect_status 0 "from cold, the quick profile, as text" -- env PATH="$TMP/bin:$PATH" \
	PWTUNE_PROBE_DIR="$TMP/pd" "$PWTUNE" recommend --target-ms 40 \
	--profile quick --memory-max 64MiB --floor none -q
expect_stdout "... the table says php is here, and how to time it" \
	"php                  libargon2 not measured yet; its runtime is here; pwtune recommend --stack php times it"
expect_stdout "... and that python-pynacl's is not" \
	"(not installed: $TMP/pd/probe.py not found)"
# A floor Java's heap bound keeps every answer from: exit 1 at once, said
# before anything is measured (the quick profile and the probe took 25 s).
T0=$(date +%s)
expect_status 1 "--stack java-bouncycastle --floor rfc9106: a negative answer" -- \
	"$PWTUNE" recommend --target-ms 250 --stack java-bouncycastle --floor rfc9106
T1=$(date +%s)
expect_stderr "... naming the bound and the floor" \
	"java-bouncycastle: no parameters at or below m = 32768 KiB meet the rfc9106 floor here"
[ $((T1 - T0)) -le 2 ] && ok "... before measuring ($((T1 - T0)) s)" ||
	bad "... after $((T1 - T0)) s: it measured first"
# Measuring where make run's store is: said, with how to ask it instead.
mkdir -p "$TMP/proj/var" && : >"$TMP/proj/var/pwtune.db"
(cd "$TMP/proj" && "$PWTUNE" recommend --target-ms 20 --memory-max 8MiB \
	--floor none >"$TMP/out" 2>"$TMP/err")
expect_stderr "beside make run's store: --db var/pwtune.db is said" \
	"var/pwtune.db is a store (make run's daemon keeps it): --db var/pwtune.db answers from what it measured"
(cd "$TMP/proj" && "$PWTUNE" recommend --target-ms 20 --memory-max 8MiB \
	--floor none -q >"$TMP/out" 2>"$TMP/err")
grep -q "var/pwtune.db" "$TMP/err" && bad "-q: the store still said" ||
	ok "-q: not said"
finish
