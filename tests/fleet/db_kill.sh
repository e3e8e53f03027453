#!/usr/bin/env bash
# The store killed under a fleet: two daemons share one PostgreSQL server;
# while "fast" measures a run, the server and all its processes get
# SIGKILL. Both daemons keep answering (their own models, and scope=group
# from the hosts they last read), /readyz and /metrics say the store is
# unreachable; the run ends failed. Once the server is back: no point the
# store had acknowledged is lost, the run's end is recorded, the store
# checks clean, and the daemons say the store is reachable again.
. "$(dirname "$0")/lib.sh" || exit 1
pg_start "$TMP" || exit 1
bench_hosts fast:1 slow:2
start_host fast 1 PWTUNED_VERIFY_TARGETS=none
start_host slow 2
# No floor: the target stays in reach on a loaded machine.
Q="target_ms=250&floor=none"
for h in fast slow; do
	PORT=$(eval echo "\$PORT_$h")
	expect_http 200 "$h: scope=group before" GET "/v1/recommendation?$Q&scope=group"
	cp "$TMP/body" "$TMP/group-$h.json"
done
expect_http 200 "slow: ready" GET /readyz
SLOW_RUN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model_run"])' "$TMP/body")

PORT=$PORT_fast
expect_http 202 "a run on fast" POST /v1/runs -H "Authorization: Bearer $(cat "$TMP/fast/token")"
RUN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$TMP/body")
if wait_run "$RUN" '"points_done": ?([3-9]|[1-9][0-9])' 300; then ok "run $RUN: three points stored"; else bad "run $RUN never stored three points"; fi
pg_crash
# Everything the store acknowledged is in its files now; count it after.
ACK=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["points_done"])' "$TMP/body")
echo "       killed the server with $ACK points of run $RUN acknowledged"

sleep 2.5	# past the daemons' store probe interval
for h in fast slow; do
	PORT=$(eval echo "\$PORT_$h")
	expect_http 200 "$h: answers while the store is away" GET "/v1/recommendation?$Q"
	expect_http 200 "$h: scope=group while the store is away" GET "/v1/recommendation?$Q&scope=group"
	expect_body "$h: the same group answer, from the hosts it last read" \
		"j['phc_prefix'] == $(python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["phc_prefix"]))' "$TMP/group-$h.json") and j['store']['reachable'] is False"
	expect_http 200 "$h: /readyz stays ready" GET /readyz
	expect_body "$h: /readyz says the store is unreachable" \
		'j["store"]["reachable"] is False and "cannot be reached" in j["store"]["error"]'
	# D1: an answer anyone may ask for holds none of libpq's words.
	expect_body "$h: /readyz without libpq's message" \
		'all(w not in j["store"]["error"] for w in ("127.0.0.1", "postgresql", "connection", "port", "server"))'
	expect_http 200 "$h: /metrics" GET /metrics
	if grep -q '^pwtuned_store_up{engine="postgresql"} 0$' "$TMP/body"; then
		ok "$h: pwtuned_store_up 0"
	else
		bad "$h: pwtuned_store_up is not 0"; grep store "$TMP/body"
	fi
done
PORT=$PORT_fast
for _ in $(seq 1800); do
	grep -q "run $RUN failed" "$TMP/fast.log" && break
	sleep 0.1
done
if grep -q "run $RUN failed" "$TMP/fast.log"; then ok "the run ends failed"; else bad "run $RUN did not end"; tail -5 "$TMP/fast.log"; fi
expect_http 503 "GET /v1/runs/$RUN: the store cannot be read" GET "/v1/runs/$RUN"
# A run that is not running, asked to stop: the store cannot tell, 503
# with Retry-After (not 404, as if it had said no such run).
expect_http 503 "DELETE /v1/runs/$RUN: the store cannot be read" DELETE "/v1/runs/$RUN" \
	-H "Authorization: Bearer $(cat "$TMP/fast/token")"
expect_body "DELETE: try again (Retry-After)" "int(h['retry-after']) > 0"
expect_http 503 "fast: an observation cannot be written" POST /v1/observations \
	-H "Content-Type: application/json" -H "Authorization: Bearer $(cat "$TMP/fast/token")" \
	-d '{"stack": "c-libsodium", "m_kib": 19456, "t": 2, "samples_ms": [30.5, 31]}'
expect_body "fast: try again in seconds, not half a minute (Retry-After)" "int(h['retry-after']) <= 5"

# Reads on every HTTP thread while the server is away and as it comes
# back: each thread's connection fails and waits out its backoff.
(
	while :; do
		curl -s -o /dev/null --max-time 5 "http://127.0.0.1:$PORT/v1/runs/$RUN"
		sleep 0.03
	done
) &
READER=$!
pg_launch || exit 1
back=0
for _ in $(seq 100); do
	req GET /readyz
	if grep -q '"reachable": *true' "$TMP/body"; then back=1; break; fi
	sleep 0.1
done
if [ $back = 1 ]; then ok "fast: /readyz says the store is back"; else bad "fast: the store is not seen back"; cat "$TMP/body"; fi
kill "$READER"; wait "$READER" 2>/dev/null
# Once one connection is through, every thread writes at once: 8 writes
# on 8 connections, none refused.
WRITERS=
for i in 1 2 3 4 5 6 7 8; do
	curl -s -o "$TMP/obs$i.json" -w '%{http_code}\n' --max-time 10 \
		-H "Content-Type: application/json" -H "Authorization: Bearer $(cat "$TMP/fast/token")" \
		-d '{"stack": "c-libsodium", "m_kib": 19456, "t": 2, "samples_ms": [30.5, 31]}' \
		"http://127.0.0.1:$PORT/v1/observations" >"$TMP/obs$i.status" &
	WRITERS="$WRITERS $!"
done
wait $WRITERS
codes=$(cat "$TMP"/obs?.status | tr '\n' ' ')
if [ "$(cat "$TMP"/obs?.status | sort -u)" = 201 ]; then
	ok "fast: 8 writes on every thread as soon as the store is back ($codes)"
else
	bad "fast: writes refused after the store came back: $codes"; cat "$TMP/obs1.json"
fi
if wait_run "$RUN" '"status": ?"failed"' 100 && ! grep -q '"recorded": *false' "$TMP/body"; then
	ok "the run's end is recorded once the store is back"
else
	bad "the run's end is not recorded"; cat "$TMP/body"
fi
KEPT=$(psql_q "SELECT count(*) FROM points WHERE run_id = $RUN")
if [ -n "$KEPT" ] && [ "$KEPT" -ge "$ACK" ]; then
	ok "no acknowledged point lost ($KEPT stored, $ACK acknowledged)"
else
	bad "points lost: $KEPT stored, $ACK acknowledged"
fi
expect_status 0 "pwtune db check on the store" -- "$PWTUNE" db check --db "$PG_URL"
expect_stdout "it is consistent" "ok"
PORT=$PORT_slow
# Its HTTP threads leave a database known away alone until its job runner
# (probing every 2 s) sees it back, as /readyz says.
back=0
for _ in $(seq 100); do
	req GET /readyz
	if grep -q '"reachable": *true' "$TMP/body"; then back=1; break; fi
	sleep 0.1
done
if [ $back = 1 ]; then ok "slow: /readyz says the store is back"; else bad "slow: the store is not seen back"; cat "$TMP/body"; fi
expect_http 200 "slow: the store is read again" GET "/v1/runs/$RUN"
PORT=$PORT_fast
expect_http 201 "fast: observations are written later" POST /v1/observations \
	-H "Content-Type: application/json" -H "Authorization: Bearer $(cat "$TMP/fast/token")" \
	-d '{"stack": "c-libsodium", "m_kib": 19456, "t": 2, "samples_ms": [30.5, 31]}'

# Daemons that start while the database is away: they listen and say why
# they have no answers yet, then catch up once it is back (slow loads its
# model; late, a host with no run, queues its start-up run).
pg_crash
kill -TERM "$PID_slow"
if wait "$PID_slow"; then ok "slow: stops with the store away"; else bad "slow: exit status $? on SIGTERM with the store away"; fi
start_host slow 2
start_host late 1 PWTUNED_STARTUP_PROFILE=quick
for h in slow late; do
	PORT=$(eval echo "\$PORT_$h")
	if grep -q "starting without it" "$TMP/$h.log"; then ok "$h: starts without the store, and says so"; else bad "$h: no word of the store at start"; cat "$TMP/$h.log"; fi
	expect_http 200 "$h: /healthz while the store is away" GET /healthz
	expect_http 503 "$h: /readyz: not ready" GET /readyz
	expect_body "$h: /readyz says the store cannot be reached" '"cannot be reached" in j["detail"]'
	expect_http 503 "$h: no answer without a model" GET "/v1/recommendation?$Q"
	expect_body "$h: the answer's refusal names the store" '"cannot be reached" in j["detail"] and j["status"] == 503'
done
pg_launch || exit 1
PORT=$PORT_slow
for _ in $(seq 150); do
	req GET /readyz
	[ "$(cat "$TMP/status")" = 200 ] && break
	sleep 0.1
done
expect_http 200 "slow: ready once the store is back" GET /readyz
expect_body "slow: serves the model of its run $SLOW_RUN" "j['model_run'] == $SLOW_RUN and j['store']['reachable'] is True"
expect_http 200 "slow: scope=group answers again" GET "/v1/recommendation?$Q&scope=group"
expect_body "slow: the same group answer as before" \
	"j['phc_prefix'] == $(python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["phc_prefix"]))' "$TMP/group-slow.json")"
PORT=$PORT_late
for _ in $(seq 150); do
	req GET /v1/runs
	grep -q '"trigger": *"startup"' "$TMP/body" && break
	sleep 0.1
done
expect_body "late: its start-up run is queued once the store is back" \
	'any(r["trigger"] == "startup" and r["status"] in ("queued", "running") for r in j["runs"])'
stop_hosts
finish
