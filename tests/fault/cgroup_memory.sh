#!/usr/bin/env bash
# F10: pwtuned in a memory cgroup of 256 MiB (v1 here, v2 elsewhere). Its
# budget comes from the cgroup; a question for 1 GiB gets parameters
# within the budget (or 422); a full quick run skips what does not fit and
# the kernel kills nothing. Needs root and a writable cgroup tree (77
# otherwise).
. "$(dirname "$0")/../api/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: creating a cgroup needs root"; exit 77; }
LIMIT=$((256 * 1024 * 1024))
if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
	CG=/sys/fs/cgroup/pwtune-f10-$$
	mkdir "$CG" 2>/dev/null || { echo "skipped: cannot create $CG"; exit 77; }
	echo $LIMIT >"$CG/memory.max"; echo 0 >"$CG/memory.swap.max" 2>/dev/null
	ooms() { awk '/^oom_kill / {print $2}' "$CG/memory.events"; }
elif [ -d /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/pwtune-f10-$$
	mkdir "$CG" 2>/dev/null || { echo "skipped: cannot create $CG"; exit 77; }
	echo $LIMIT >"$CG/memory.limit_in_bytes"
	echo $LIMIT >"$CG/memory.memsw.limit_in_bytes" 2>/dev/null
	ooms() { awk '/^oom_kill / {print $2}' "$CG/memory.oom_control"; }
else
	echo "skipped: no memory cgroup"; exit 77
fi
trap 'cleanup_daemon; rmdir "$CG" 2>/dev/null' EXIT
seed_store
printf '#!/bin/sh\necho $$ >"%s/cgroup.procs" && exec "$@"\n' "$CG" >"$TMP/incg"
chmod +x "$TMP/incg"
WRAP="$TMP/incg" start_daemon PWTUNED_VERIFY_TARGETS=none --
grep -qx "$PID" "$CG/cgroup.procs" && ok "pwtuned runs in the cgroup" || bad "not in $CG"
expect_http 200 "hosts" GET /v1/hosts
expect_body "the budget comes from the cgroup, under 256 MiB" '
    [x for x in j["hosts"] if x["this_host"]][0]["memory_budget"]["source"] == "cgroup"
    and [x for x in j["hosts"] if x["this_host"]][0]["memory_budget"]["bytes"] < 256 * 1048576'
# The cgroup's limit is part of the host's fingerprint: the seeded run was
# measured outside it, so the model is stale until a run here.
expect_body "stale: the host changed since the model's run" '
    [x for x in j["hosts"] if x["this_host"]][0]["stale"] is True'
budget=$(python3 -c "import json,sys; print([x for x in json.load(open(sys.argv[1]))['hosts'] if x['this_host']][0]['memory_budget']['bytes'])" "$TMP/body")
echo "  budget: $((budget / 1048576)) MiB"
req GET "/v1/recommendation?target_ms=2000&memory_max=1GiB"
st=$(cat "$TMP/status")
if [ "$st" = 200 ]; then
	expect_body "1 GiB asked: clamped to the budget" "j['m_kib'] * 1024 <= $budget and j['memory_in_flight_kib'] * 1024 <= $budget"
else
	[ "$st" = 422 ] && ok "1 GiB asked: 422" || bad "1 GiB asked: HTTP $st"
fi
expect_http 200 "the answer says stale" GET "/v1/recommendation?target_ms=250"
expect_body "stale in the answer" 'j["stale"] is True'
req GET /metrics
grep -q '^pwtuned_model_stale 1' "$TMP/body" && ok "metrics: pwtuned_model_stale 1" || bad "metrics: stale gauge"
expect_http 202 "a quick run in the cgroup" POST /v1/runs -H "Authorization: Bearer $(TOKEN)" -H "Content-Type: application/json"
id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$TMP/body")
wait_run "$id" '"status":"(done|failed|cancelled|interrupted)"' 1200
expect_body "the run is done" 'j["status"] == "done"'
python3 - "$VAR/pwtune.db" "$id" "$budget" <<'PY' && ok "points over the budget skipped, the rest measured" || bad "points"
import json, sqlite3, sys
db, run, budget = sqlite3.connect(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rows = [json.loads(r[0]) for r in db.execute("SELECT data FROM points WHERE run_id = ?", (run,))]
ok = [p for p in rows if p["status"] == "ok"]
skipped = [p for p in rows if p["status"] == "skipped"]
print("  %d points measured, %d skipped, %s" % (len(ok), len(skipped), sorted({p["status"] for p in rows})))
assert ok and skipped
assert all(p["m_kib"] * 1024 * p["k"] <= budget for p in ok)
assert not [p for p in rows if p["status"] in ("killed", "oom")]
PY
expect_http 200 "hosts after the run" GET /v1/hosts
expect_body "fresh again after a run here" '[x for x in j["hosts"] if x["this_host"]][0]["stale"] is False'
[ "$(ooms)" = 0 ] && ok "no OOM kill in the cgroup" || bad "OOM kills: $(ooms)"
kill -0 "$PID" && ok "pwtuned alive" || bad "pwtuned died"
stop_daemon
finish
