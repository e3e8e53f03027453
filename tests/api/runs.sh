#!/usr/bin/env bash
# Runs through the API: POST starts one (202, Location), GET shows its
# progress, a second POST gets 409 with Retry-After, DELETE cancels it, the
# cool-down answers 429; 20 POSTs at once get exactly one 202 (L6).
. "$(dirname "$0")/lib.sh"
seed_store
start_daemon PWTUNED_COOLDOWN=0
T=$(TOKEN)
A=(-H "Content-Type: application/json" -H "Authorization: Bearer $T")

expect_http 202 "POST /v1/runs" POST /v1/runs "${A[@]}" --data-binary '{"profile": "quick"}'
expect_body "202: Location and the run" 'h["location"] == "/v1/runs/%d" % j["id"] and j["status"] in ("queued", "running") and j["trigger"] == "api" and j["points_total"] > 0'
id=$(python3 -c "import json; print(json.load(open('$TMP/body'))['id'])")
for _ in $(seq 50); do
	req GET "/v1/runs/$id"
	grep -q '"status":"running"' "$TMP/body" && grep -q '"progress"' "$TMP/body" && break
	sleep 0.1
done
expect_body "GET shows it running, with progress over the run's points" 'j["status"] == "running" and j["progress"]["points_total"] == j["points_total"] and j["progress"]["total"] == j["points_total"]'
expect_body "no quick run of this host done before: eta_s null" 'j["progress"]["eta_s"] is None'
expect_http 409 "a second POST: 409" POST /v1/runs "${A[@]}"
expect_body "409 says when to retry" 'int(h["retry-after"]) > 0 and j["status"] == 409'
expect_http 200 "answers go on during the run" GET "/v1/recommendation?target_ms=250"
req GET /metrics
grep -q '^pwtuned_benchmark_in_progress 1' "$TMP/body" && ok "metrics: benchmark in progress" || bad "metrics: in progress"
expect_http 202 "DELETE cancels" DELETE "/v1/runs/$id" "${A[@]}"
wait_run "$id" '"status":"cancelled"' 50
expect_body "the run is cancelled" 'j["status"] == "cancelled" and j["finished"].endswith("Z")'
# The API's log lines reach the daemon's log (api_env.log).
grep -q "info: run $id requested through the API (quick)" "$TMP/log" &&
	grep -q "info: run $id cancelled through the API" "$TMP/log" &&
	ok "the daemon's log has the API's lines (requested, cancelled)" ||
	bad "the API's lines are not in the daemon's log: $(grep -c 'through the API' "$TMP/log")"
expect_http 409 "DELETE a finished run: 409" DELETE "/v1/runs/$id" "${A[@]}"
expect_body "409: the run already finished, its own type" '
    j["type"] == "/problems/run-finished" and j["title"] == "The run already finished"
    and j["param"] == "id" and "already ended (cancelled)" in j["detail"]'
expect_http 404 "DELETE a run that never was" DELETE /v1/runs/999 "${A[@]}"
expect_http 400 "a bad profile" POST /v1/runs "${A[@]}" --data-binary '{"profile": "slow"}'
expect_body "bad profile named" 'j["param"] == "profile"'
expect_http 400 "an unknown member" POST /v1/runs "${A[@]}" --data-binary '{"profile": "quick", "m": 1}'
stop_daemon

# A quick run of this host done before, in 120 s: the time left of the
# next is estimated from it (the seeded run, made a quick one).
sqlite3 "$VAR/pwtune.db" "UPDATE runs SET profile = 'quick', started = '2026-01-01T00:00:00Z', finished = '2026-01-01T00:02:00Z' WHERE id = 1"
start_daemon PWTUNED_COOLDOWN=0
expect_http 202 "POST /v1/runs after a quick run of 120 s" POST /v1/runs "${A[@]}" --data-binary '{"profile": "quick"}'
id=$(python3 -c "import json; print(json.load(open('$TMP/body'))['id'])")
for _ in $(seq 100); do
	req GET "/v1/runs/$id"
	grep -q '"eta_s":[0-9]' "$TMP/body" && break
	sleep 0.1
done
expect_body "eta_s: what is left of the last quick run's 120 s" '100 < j["progress"]["eta_s"] <= 120'
expect_http 202 "DELETE cancels it" DELETE "/v1/runs/$id" "${A[@]}"
wait_run "$id" '"status":"cancelled"' 50
stop_daemon

# The cool-down: a run just ended, so the next POST waits.
start_daemon PWTUNED_COOLDOWN=3600
expect_http 202 "POST, cool-down 1 h" POST /v1/runs "${A[@]}"
id=$(python3 -c "import json; print(json.load(open('$TMP/body'))['id'])")
sleep 0.3
expect_http 202 "cancel it" DELETE "/v1/runs/$id" "${A[@]}"
wait_run "$id" '"status":"cancelled"' 50
expect_http 429 "within the cool-down: 429" POST /v1/runs "${A[@]}"
expect_body "429 says how long" 'int(h["retry-after"]) > 3000'
stop_daemon

# rebench_interval: a scheduled run starts by itself once the newest
# finished run is that old.
start_daemon PWTUNED_REBENCH_INTERVAL=1
for _ in $(seq 60); do
	grep -q '"trigger":"schedule"' <(curl -s "http://127.0.0.1:$PORT/v1/runs") && break
	sleep 0.1
done
grep -q '"trigger":"schedule"' <(curl -s "http://127.0.0.1:$PORT/v1/runs") && ok "rebench_interval: a scheduled run started" || bad "no scheduled run"
stop_daemon

# A run the daemon made itself does not start a cool-down: right after a
# scheduled run ends, POST /v1/runs is accepted even with cooldown = 1 h.
start_daemon PWTUNED_REBENCH_INTERVAL=1 PWTUNED_COOLDOWN=3600
for _ in $(seq 60); do
	sid=$(curl -s "http://127.0.0.1:$PORT/v1/runs" | python3 -c "
import json, sys
runs = [r for r in json.load(sys.stdin)['runs'] if r['trigger'] == 'schedule' and r['status'] in ('queued', 'running')]
print(runs[0]['id'] if runs else '')")
	[ -n "$sid" ] && break
	sleep 0.1
done
expect_http 202 "cancel the scheduled run" DELETE "/v1/runs/$sid" "${A[@]}"
wait_run "$sid" '"status":"cancelled"' 50
expect_http 202 "after a scheduled run: no cool-down" POST /v1/runs "${A[@]}"
stop_daemon

# A run that ends: the model is swapped in, then the answers for
# verify_targets are measured and kept (GET /v1/model shows them), and
# only then is the run "done" (no new run can start in between).
# A grid of argon2i stored before it (pwtune bench --db): the run's model
# takes its curve (the run measures argon2id only).
"$PWTUNE" bench --m 8MiB,16MiB --t 3,5 --backend libsodium --variant argon2i \
	--repeats 2 --db "$VAR/pwtune.db" --no-json -q >/dev/null 2>&1 || bad "the argon2i grid was not stored"
grid=$(sqlite3 "$VAR/pwtune.db" "SELECT max(id) FROM runs")
start_daemon PWTUNED_COOLDOWN=0 PWTUNED_MEMORY_MAX=32MiB PWTUNED_VERIFY_TARGETS=100,200
expect_http 202 "a small run" POST /v1/runs "${A[@]}"
id=$(python3 -c "import json; print(json.load(open('$TMP/body'))['id'])")
for _ in $(seq 600); do
	req GET "/v1/runs/$id"
	grep -q '"status":"running"' "$TMP/body" || grep -q '"status":"queued"' "$TMP/body" || break
	sleep 0.1
done
expect_body "the small run is done" "j['status'] == 'done'"
expect_http 200 "its model" GET /v1/model
expect_body "... with the curve of the grid stored before the run" "j['run_id'] == $id and
    [(c['variant'], c['run_id']) for c in j['model']['curves'] if c['variant'] == 'argon2i'] == [('argon2i', $grid)]
    and all(c['run_id'] == $id for c in j['model']['curves'] if c['variant'] == 'argon2id')"
grep -qE "model from run $id in use: .*; with libsodium argon2i p = 1 from run $grid" "$TMP/log" &&
	ok "... and the run's log line names it" || bad "the run's log line does not name the grid's curve"
# Each target is verified, or the log says why not (on a slow or noisy
# host the floor may put a target out of reach); at least one is.
verified=$(python3 -c "import json,sys; print(' '.join(str(int(v['target_ms'])) for v in json.load(open(sys.argv[1]))['verifications'] if v['run_id'] == $id))" "$TMP/body")
expect_body "verified answers of the new run, predicted against measured" "
    j['run_id'] == $id and len(j['verifications']) >= 1
    and all(v['run_id'] == $id and v['measured_ms'] > 0 and v['predicted_ms'] > 0
            and v['params']['m_kib'] >= 8 and v['params']['k'] == 1 for v in j['verifications'])"
for t in 100 200; do
	if grep -qw "$t" <<<"$verified"; then
		grep -q "run $id: verification of $t ms" "$TMP/log" && ok "$t ms: verified, and logged" || bad "$t ms: not in the log"
	else
		grep -q "run $id: nothing to verify at $t ms" "$TMP/log" && ok "$t ms: out of reach here, and the log says so" ||
			bad "$t ms: neither verified nor explained"
	fi
done
# Until a background check measures it, an answer with exactly the
# parameters a verification measured says so (verified, by
# "verification"); one the refit moved since, or whose verification was
# noisy (the log says so), is predicted only.
cp "$TMP/body" "$TMP/verified-model.json"
for t in $verified; do
	req GET "/v1/recommendation?target_ms=$t"
	python3 - "$TMP/verified-model.json" "$TMP/body" "$id" "$t" "$TMP/log" >"$TMP/vres" <<'PY'
import json, re, sys
model, ans, run, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3]), float(sys.argv[4])
# The verdict's line (a noisy first measurement, measured again, has its
# own line before it; the second stands for the verification).
noisy = re.search(r"run %d: verification of %d ms: \S+ predicted .*noisy" % (run, t), open(sys.argv[5]).read()) is not None
v = [v for v in model["verifications"] if v["run_id"] == run and v["target_ms"] == t][0]
same = all(ans[k] == v["params"][k] for k in ("m_kib", "t", "p"))
got = ans["verified"]
if same and not noisy:
    ok = got is not None and got["by"] == "verification" and abs(got["measured_ms"] - v["measured_ms"]) < 0.01 and got["in_band"] == (0.9 * t <= got["measured_ms"] <= t)
else:
    ok = got is None
print("noisy" if noisy else "same" if same else "moved", "ok" if ok else "bad", json.dumps(got))
PY
	read -r how res rest <"$TMP/vres"
	[ "$res" = ok ] && ok "$t ms: the answer ($how since its verification) says what measured it" ||
		bad "$t ms: the answer ($how since its verification) says verified $rest"
done
cp "$TMP/verified-model.json" "$TMP/body"
# Each verification is a measured answer: kept as an observation at its
# exact parameters (a point of the model, "check", unless noisy or too far
# off, "check-suspect", as the log says), and the model refitted with the
# points, at once and again after a restart.
cp "$TMP/body" "$TMP/model.json"
expect_http 200 "the observations" GET /v1/observations
python3 - "$TMP/model.json" "$TMP/body" "$TMP/log" "$id" >"$TMP/points" <<'PY' && ok "every verification kept as an observation at its parameters, as the log says" || bad "verifications not kept as observations: $(cat "$TMP/points")"
import json, re, sys
model, obs, log, run = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read(), int(sys.argv[4])
ver = [v for v in model["verifications"] if v["run_id"] == run]
points = 0
for v in ver:
    p = v["params"]
    mine = [o for o in obs["observations"] if (o["m_kib"], o["t"], o["p"], o["k"]) == (p["m_kib"], p["t"], p["p"], 1)
            and o["source"] in ("check", "check-suspect") and o["stack"] == "libsodium"]
    # A noisy measurement is measured again once (the first kept as a
    # suspect); one further off than the model's error is measured again
    # too: "check" both when the second agrees (the newer is the model's
    # point at these parameters).
    noisy = re.search(r"run %d: verification of %d ms: \S+ noisy \(median [0-9.]+ ms\): measured again" % (run, v["target_ms"]), log)
    again = re.search(r"run %d: verification of %d ms again: median [0-9.]+ x the model's, (as the first: a point|[^\n]*neither)" % (run, v["target_ms"]), log)
    assert len(mine) == 1 + bool(noisy) + bool(again) and all(o["samples"] >= 5 for o in mine), (p, mine)
    if again:
        want = 2 if again.group(1).startswith("as the first") else 0
    else:
        # The verdict ends the line: ", a point of the model)", or "...: not a
        # point of the model)" (noisy, or further off than the model's error).
        said = re.search(r"run %d: verification of %d ms: [^\n]*?(, a point of the model\)|not a point of the model\))" % (run, v["target_ms"]), log)
        assert said, "no verdict in the log for %s ms" % v["target_ms"]
        want = 1 if said.group(1).startswith(", a point") else 0
    assert sum(o["source"] == "check" for o in mine) == want, (mine, want)
    points += any(o["source"] == "check" for o in mine)
# The libargon2 curve's answers are verified too (said "(libargon2)" in
# the log), kept as observations of libargon2 only: each taken is a point.
lib2 = {(o["m_kib"], o["t"], o["p"]) for o in obs["observations"] if o["stack"] == "libargon2"
        and o["source"] == "check" and o["k"] == 1}
taken2 = set()
for tgt, m, t, pp, verdict in re.findall(r"^.*run %d: verification of (\d+) ms \(libargon2\): \$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+) predicted .*?(, a point of the model\)|measured again\)|not a point of the model\))$" % run, log, re.M):
    assert pp == "1", "libargon2's answer verified at p = %s" % pp
    if verdict == "measured again)":
        verdict = re.search(r"run %d: verification of %s ms \(libargon2\) again: median [0-9.]+ x the model's, (as the first: a point|[^\n]*neither)" % (run, tgt), log).group(1)
    if verdict.startswith((", a point", "as the first")):
        taken2.add((int(m), int(t), int(pp)))
assert lib2 == taken2, (lib2, taken2)
print(points, points + len(lib2))
PY
read -r points total <"$TMP/points"
if [ "${total:-0}" -gt 0 ] 2>/dev/null; then
	grep -qE "run $id: verified, model refitted with $total points? from checks" "$TMP/log" &&
		ok "the model refitted with the $total verification(s) taken ($points of libsodium)" ||
		bad "no refit with $total verification(s): $(grep -E "run $id: (verified|not refitted)" "$TMP/log")"
	expect_http 200 "the refitted model" GET /v1/model
	expect_body "its libsodium curve is scaled by its $points verification(s)" \
		"any(c['checks'] and c['checks']['points'] == $points for c in j['model']['curves'] if c['backend'] == 'libsodium') if $points > 0 else not any(c['checks'] for c in j['model']['curves'] if c['backend'] == 'libsodium')"
	stop_daemon
	start_daemon PWTUNED_COOLDOWN=0 PWTUNED_MEMORY_MAX=32MiB PWTUNED_VERIFY_TARGETS=100,200
	grep -qE "run $id: model fitted with $total points? from checks" "$TMP/log" &&
		ok "after a restart the verifications are still points of the model" ||
		bad "after a restart the verifications were not taken: $(grep -E "run $id" "$TMP/log" | head -3)"
else
	echo "       every verification was noisy here: nothing refitted (the log says so)"
	grep -q "refitted with" "$TMP/log" && bad "a refit without a verification taken" ||
		ok "no refit without a verification taken"
fi
stop_daemon

# L6: 20 authenticated POSTs at once: exactly one 202.
start_daemon PWTUNED_COOLDOWN=0
python3 - "$PORT" "$T" <<'PY' && ok "20 POSTs at once: one 202, the rest 409 or 429 with Retry-After" || bad "L6"
import http.client, sys, threading
port, token = int(sys.argv[1]), sys.argv[2]
results = []
def post():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("POST", "/v1/runs", body=b"{}", headers={
        "Content-Type": "application/json", "Authorization": "Bearer " + token})
    r = c.getresponse()
    results.append((r.status, r.getheader("Retry-After")))
    r.read()
ts = [threading.Thread(target=post) for _ in range(20)]
[t.start() for t in ts]
[t.join() for t in ts]
codes = sorted(s for s, _ in results)
assert codes.count(202) == 1, codes
assert all(s in (202, 409, 429) for s in codes), codes
assert all(ra for s, ra in results if s != 202), results
PY
stop_daemon
finish
