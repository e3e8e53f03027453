#!/usr/bin/env bash
# L5 with slowhttptest: slow headers (slowloris) and a slow body against a
# pwtuned whose connection_timeout is 2 s, and slow headers again with a
# line every second, which no idle timeout catches: request_timeout (3 s)
# must. Health probes from another loopback address (127.0.0.2: the
# per-address limit is the attacker's, not the probes') every 100 ms must
# all succeed, and the slow connections must be closed by the server,
# none left open at the end.
. "$(dirname "$0")/../api/lib.sh"
command -v slowhttptest >/dev/null || { echo "FAIL: slowhttptest is missing (make deps installs it)"; exit 1; }
seed_store
start_daemon PWTUNED_CONNECTION_TIMEOUT=2 PWTUNED_REQUEST_TIMEOUT=${REQUEST_TIMEOUT:-3} \
	PWTUNED_MAX_CONNECTIONS_PER_IP=64 --

probe() {	# probe SECONDS: GET /healthz every 100 ms; prints "ok total"
	local end=$(( $(date +%s) + $1 )) good=0 all=0
	while [ "$(date +%s)" -lt "$end" ]; do
		code=$(curl -s -o /dev/null -w '%{http_code}' --interface 127.0.0.2 \
			--max-time 2 "http://127.0.0.1:$PORT/healthz")
		all=$((all + 1))
		[ "$code" = 200 ] && good=$((good + 1))
		sleep 0.1
	done
	echo "$good $all"
}

attack() {	# attack NAME INTERVAL slowhttptest-options...
	local name=$1 interval=$2
	shift 2
	slowhttptest "$@" -c 150 -r 75 -i "$interval" -l 12 -p 3 -g -o "$TMP/$name" \
		>"$TMP/$name.out" 2>&1 &
	local sp=$!
	read -r good all < <(probe 12)
	wait "$sp"
	# The CSV: seconds, closed, pending, connected, service available.
	local last maxconn
	last=$(tail -1 "$TMP/$name.csv")
	maxconn=$(awk -F, 'NR > 1 && $4 > m { m = $4 } END { print m + 0 }' "$TMP/$name.csv")
	echo "  $name: probes $good/$all; at most $maxconn slow connections open; last: $last"
	[ "$all" -gt 50 ] && [ "$good" -eq "$all" ] && ok "$name: health probes 100 % ($good/$all)" ||
		bad "$name: health probes $good/$all"
	[ "$maxconn" -gt 0 ] && ok "$name: the attack connected ($maxconn at most)" || bad "$name: never connected"
	# The server closed every slow connection, at the 2 s idle timeout
	# or the 3 s deadline: the tool stops early when none is left, long
	# before its 12 s.
	local ended
	ended=$(sed -n 's/.*Test ended on \([0-9]*\)[a-z]* second.*/\1/p' "$TMP/$name.out")
	grep -q "No open connections left" "$TMP/$name.out" &&
		ok "$name: every slow connection closed by the server" ||
		bad "$name: $(grep -i 'exit status' "$TMP/$name.out")"
	[ -n "$ended" ] && [ "$ended" -le 8 ] && ok "$name: all closed by second $ended" ||
		bad "$name: ended on second ${ended:-?}"
}

attack slowloris 5 -H -u "http://127.0.0.1:$PORT/healthz"
attack slowbody 5 -B -t POST -s 4000 -f application/json -u "http://127.0.0.1:$PORT/v1/check"
attack slowloris_1s 1 -H -u "http://127.0.0.1:$PORT/healthz"
expect_http 200 "alive after the three" GET "/v1/recommendation?target_ms=100"
stop_daemon
finish
