#!/usr/bin/env bash
# A PostgreSQL store that stops answering on connections already open (its
# processes stopped with SIGSTOP: the kernel still takes the bytes, nothing
# answers): /healthz and answers from memory stay under 100 ms while store
# requests are in flight, those give up (503) instead of holding the HTTP
# threads, and all is well again once the server goes on (SIGCONT).
. "$(dirname "$0")/../api/lib.sh"
. "$(dirname "$0")/../store/pg.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: the PostgreSQL server runs as nobody (root)"; exit 77; }
STOPPED=()
resume_pg() {
	local p
	for p in "${STOPPED[@]}"; do kill -CONT "$p" 2>/dev/null; done
	STOPPED=()
}
trap 'resume_pg; cleanup_daemon; pg_stop' EXIT
chmod 755 "$TMP"
pg_start "$TMP" || exit 1
"$PWTUNE" bench --m 8MiB,16MiB,32MiB --t 1,3 --backend libsodium --repeats 2 \
	--db "$PG_URL" --no-json -q >/dev/null 2>&1 || { echo "FAIL: seed"; exit 1; }
start_daemon -- --db "$PG_URL"
# Both HTTP threads connected to the store before it stops (one that
# connects only then waits for the connect timeout, 5 s): requests at once,
# so that each thread takes some (one after another, one thread may take
# them all).
for _ in 1 2 3 4; do
	WARM=()
	for i in 1 2 3 4; do
		curl -s -o /dev/null --max-time 10 "http://127.0.0.1:$PORT/v1/runs" &
		WARM+=($!)
	done
	wait "${WARM[@]}"
done
expect_http 200 "runs while the server answers" GET /v1/runs

# Stop the postmaster and every process it started, by their PIDs.
STOPPED=("$PG_PID" $(cat /proc/"$PG_PID"/task/*/children 2>/dev/null))
for p in "${STOPPED[@]}"; do kill -STOP "$p"; done

CURLS=()
for i in 1 2 3 4; do
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 20 \
		"http://127.0.0.1:$PORT/v1/runs" >"$TMP/runs.$i" 2>/dev/null &
	CURLS+=($!)
done
sleep 0.3
expect_quick "/healthz, the server stopped" 200 /healthz
expect_quick "an answer from memory, the server stopped" 200 "/v1/recommendation?target_ms=100&floor=none"
wait "${CURLS[@]}" 2>/dev/null
worst=0
for i in 1 2 3 4; do
	read -r code t <"$TMP/runs.$i"
	[ "$code" = 503 ] || bad "GET /v1/runs in flight $i: HTTP $code"
	worst=$(python3 -c "print(max($worst, $t))")
done
python3 -c "import sys; sys.exit(0 if $worst < 4.5 else 1)" &&
	ok "store requests in flight: 503, the slowest in $worst s (one statement's 3 s at most)" ||
	bad "store requests in flight: the slowest took $worst s"
expect_quick "GET /v1/runs once the store is known away" 503 /v1/runs
req GET /readyz
expect_body "/readyz: the store is away" 'j["store"]["reachable"] is False'

resume_pg
ok_back=0
for _ in $(seq 100); do
	req GET /v1/runs
	[ "$(cat "$TMP/status")" = 200 ] && { ok_back=1; break; }
	sleep 0.1
done
[ $ok_back = 1 ] && ok "runs again once the server goes on" || bad "runs still $(cat "$TMP/status") after the server went on"
stop_daemon
finish
