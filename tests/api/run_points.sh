#!/usr/bin/env bash
# Issue 19, points counted one way: a start-up quick run under a 16 MiB
# budget (most points skipped, a few of at most 16 MiB measured) and one
# verified answer. While it runs, progress counts the run's points
# (points_total the run's points_total, never more) and the verification
# as a step apart; once done, the run's points_done, the log's line and
# the points the store holds agree.
. "$(dirname "$0")/lib.sh" || exit 1

# The verification's target is 150 ms: 16 MiB hashes at t of ten or so,
# a second or more of the run after its model is in use, for the loop
# below to see it measuring (at 30 ms, the run was done a second after its
# model, and the loop once saw none of it).
start_daemon PWTUNED_STARTUP_PROFILE=quick PWTUNED_MEMORY_MAX=16MiB \
	PWTUNED_VERIFY_TARGETS=150 --
# Every answer of GET /v1/runs/1 while it runs, 50 ms apart (at most 60 s).
: >"$TMP/seen"
# Once ready, while the run goes on: /readyz says which run measures, and
# an answer says that hashes timed now share the CPUs with it.
: >"$TMP/during"
for _ in $(seq 1200); do
	if [ ! -s "$TMP/during" ]; then
		req GET /readyz
		if [ "$(cat "$TMP/status")" = 200 ] && python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["measuring"] else 1)' "$TMP/body"; then
			cp "$TMP/body" "$TMP/ready_during"
			req GET "/v1/recommendation?target_ms=30&floor=none"
			[ "$(cat "$TMP/status")" = 200 ] && cp "$TMP/body" "$TMP/during"
		fi
	fi
	req GET /v1/runs/1
	[ "$(cat "$TMP/status")" = 200 ] && { cat "$TMP/body"; echo; } >>"$TMP/seen"
	grep -qE '"status":"(done|failed|cancelled)"' "$TMP/body" && break
	sleep 0.05
done
expect_body "the start-up run is done" 'j["status"] == "done"'
if [ -s "$TMP/during" ]; then
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if j["measuring"]["run"] == 1 and j["measuring"]["step"] in ("points", "probes", "verifications") else 1)' "$TMP/ready_during" &&
		ok "/readyz while the run measures: measuring run 1" || bad "/readyz while the run measures: $(cat "$TMP/ready_during")"
	grep -q 'Run 1 is measuring this host now' "$TMP/during" &&
		ok "an answer made while the run measures says so" ||
		bad "the answer made during the run does not say a run measures"
	req GET /readyz
	expect_body "/readyz after the run: measuring null" 'j["measuring"] is None'
	expect_http 200 "the same question after the run" GET "/v1/recommendation?target_ms=30&floor=none"
	expect_body "the answer after the run no longer says a run measures (the kept one went)" \
		'not any("is measuring this host now" in n for n in j["notes"])'
else
	bad "no answer while the run measured"
fi
# The verifications: libsodium's answer, and libargon2's when the run
# measured that curve too (its log says which: "(libargon2)").
steps=1
grep -qE "run 1: (verification of|nothing to verify at) 150 ms \(libargon2\)" "$TMP/log" && steps=2
python3 - "$TMP/seen" "$steps" >"$TMP/check" <<'PY'
import json, sys
seen = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
steps = int(sys.argv[2])
last = seen[-1]
prog = [r["progress"] for r in seen if "progress" in r]
bad = []
for p in prog:
    if p["points_total"] != last["points_total"]:
        bad.append("points_total %d, the run's %d" % (p["points_total"], last["points_total"]))
    if not 0 <= p["points_measured"] <= p["points_done"] <= p["points_total"]:
        bad.append("measured %d, done %d of %d" % (p["points_measured"], p["points_done"], p["points_total"]))
    if (p["done"], p["total"]) != (p["points_done"], p["points_total"]):
        bad.append("done/total %d/%d differ" % (p["done"], p["total"]))
    if p["step"] not in ("points", "probes", "verifications"):
        bad.append("step " + p["step"])
    if p["step"] != "points" and p["points_done"] != p["points_total"]:
        bad.append("%s with %d of %d points" % (p["step"], p["points_done"], p["points_total"]))
    # One target: libsodium's answer, and libargon2's when its curve was
    # measured too (under 16 MiB, its 8 MiB points).
    if p["step"] == "verifications" and p["step_total"] != steps:
        bad.append("verifications: step_total %d" % p["step_total"])
print("progress=%d steps=%s" % (len(prog), ",".join(sorted({p["step"] for p in prog}))))
print("total=%d done=%d" % (last["points_total"], last["points_done"]))
print("bad=%s" % ("; ".join(sorted(set(bad))) or "none"))
PY
cat "$TMP/check" | sed 's/^/       /'
grep -q '^progress=[1-9]' "$TMP/check" && ok "progress seen while it ran" || bad "no progress seen"
grep -qx 'bad=none' "$TMP/check" && ok "progress counts the run's points, steps apart" ||
	bad "progress: $(sed -n 's/^bad=//p' "$TMP/check")"
total=$(sed -n 's/^total=\([0-9]*\) .*/\1/p' "$TMP/check")
done_=$(sed -n 's/.* done=\([0-9]*\)$/\1/p' "$TMP/check")
[ -n "$total" ] && [ "$total" = "$done_" ] && ok "the run: $done_ of $total points done" ||
	bad "the run: ${done_:-?} of ${total:-?} points done"
line=$(grep -o "run 1 done: .*" "$TMP/log")
if [[ $line =~ ^run\ 1\ done:\ ([0-9]+)\ of\ ([0-9]+)\ points\ done:\ ([0-9]+)\ measured,\ ([0-9]+)\ skipped ]] &&
	[ "${BASH_REMATCH[1]}" = "$done_" ] && [ "${BASH_REMATCH[2]}" = "$total" ]; then
	ok "the log says the same: $line"
	measured=${BASH_REMATCH[3]}
else
	bad "the log: ${line:-no end line}"
fi
# The points the store holds: the run's, measured or not.
n=$(sqlite3 "$VAR/pwtune.db" "SELECT count(*) FROM points WHERE run_id = 1")
m=$(sqlite3 "$VAR/pwtune.db" "SELECT count(*) FROM points WHERE run_id = 1 AND status = 'ok'")
[ "$n" = "$total" ] && [ "$m" = "${measured:-x}" ] &&
	ok "the store holds $n points, $m measured" ||
	bad "the store holds $n points, $m measured (log: ${measured:-?})"
stop_daemon
finish
