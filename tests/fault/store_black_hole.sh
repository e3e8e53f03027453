#!/usr/bin/env bash
# A PostgreSQL store that accepts connections and never answers (a black
# hole, connect_timeout=5): with three GET /v1/runs in flight, /healthz,
# /readyz and answers from memory stay under 100 ms, and the store's
# requests answer 503 at once instead of holding the HTTP threads.
. "$(dirname "$0")/../api/lib.sh"
python3 "$SRC/tests/fault/blackhole.py" 120 >"$TMP/bh.port" &
BH=$!
trap 'kill "$BH" 2>/dev/null; wait "$BH" 2>/dev/null; cleanup_daemon' EXIT
for _ in $(seq 50); do [ -s "$TMP/bh.port" ] && break; sleep 0.1; done
BHPORT=$(cat "$TMP/bh.port")
[ -n "$BHPORT" ] || { echo "FAIL: the black hole did not start"; exit 1; }
STORE="postgresql://pwtune@127.0.0.1:$BHPORT/pwtune?connect_timeout=5"

# The start waits out one connect_timeout, then listens without the store.
START_TRIES=400 start_daemon -- --db "$STORE"

# Three store requests in flight (each may wait for the store at most once).
CURLS=()
for i in 1 2 3; do
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 20 \
		"http://127.0.0.1:$PORT/v1/runs" >"$TMP/runs.$i" 2>/dev/null &
	CURLS+=($!)
done
sleep 0.3

expect_quick "/healthz with the store a black hole" 200 /healthz
expect_quick "/readyz with the store a black hole" 503 /readyz
expect_quick "an answer (no model yet) with the store a black hole" 503 "/v1/recommendation?target_ms=250"
expect_quick "GET /v1/runs with the store a black hole" 503 /v1/runs
wait "${CURLS[@]}" 2>/dev/null
worst=0
for i in 1 2 3; do
	read -r code t <"$TMP/runs.$i"
	[ "$code" = 503 ] || bad "GET /v1/runs in flight $i: HTTP $code"
	worst=$(python3 -c "print(max($worst, $t))")
done
python3 -c "import sys; sys.exit(0 if $worst < 6 else 1)" &&
	ok "the store requests in flight: 503, the slowest in $worst s (one connect_timeout at most)" ||
	bad "the store requests in flight: the slowest took $worst s"
req GET /readyz
expect_body "/readyz says the store is away, no libpq text" \
	'j["status"] == 503 and "store cannot be reached" in j["detail"]'
stop_daemon
finish
