#!/usr/bin/env bash
# RELIABILITY L1: wrk -t2 -c32 on GET /v1/recommendation for 20 s: no
# errors, p99 under 20 ms, RSS growth under 2 MiB. L2: /healthz and the
# recommendation while a benchmark runs: no errors, p99 under 50 ms. In a
# sanitizer build only the errors count (ASan slows everything and holds
# freed memory).
. "$(dirname "$0")/../api/lib.sh"
command -v wrk >/dev/null || { echo "wrk is not installed (make deps installs it)"; exit 1; }
seed_store
start_daemon
URL="http://127.0.0.1:$PORT/v1/recommendation?target_ms=250&concurrency=4"
wrk -t2 -c32 -d3s "$URL" >/dev/null 2>&1	# warm-up: caches, pools, threads
rss0=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$PID/status")
wrk -t2 -c32 -d20s --latency "$URL" >"$TMP/wrk" 2>&1
rss1=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$PID/status")
cat "$TMP/wrk" | sed -n '/Latency Distribution/,/Requests\/sec/p'
! grep -qE "Non-2xx|Socket errors" "$TMP/wrk" && ok "L1: no errors" || { bad "L1: errors"; grep -E "Non-2xx|Socket errors" "$TMP/wrk"; }
p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 }
	else if (v ~ /ms$/) sub(/ms/, "", v); else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }
	print v }' "$TMP/wrk")
if [ -n "${SANITIZED:-}" ]; then
	echo "sanitizer build: p99 $p99 ms and RSS +$((rss1 - rss0)) KiB not judged"
else
	awk -v p="$p99" 'BEGIN { exit !(p < 20) }' && ok "L1: p99 $p99 ms < 20 ms" || bad "L1: p99 $p99 ms"
	[ $((rss1 - rss0)) -lt 2048 ] && ok "L1: RSS +$((rss1 - rss0)) KiB < 2 MiB" || bad "L1: RSS grew $((rss1 - rss0)) KiB"
fi

# L2: the same while a benchmark runs (the quick profile, up to 512 MiB).
# Not in a sanitizer build: its benchmark children there take so long and
# so much memory that wrk's 2 s timeouts say nothing about pwtuned.
if [ -n "${SANITIZED:-}" ]; then
	echo "sanitizer build: L2 not run"
	stop_daemon
	finish
	exit $?
fi
curl -s -o /dev/null -X POST -H "Authorization: Bearer $(TOKEN)" "http://127.0.0.1:$PORT/v1/runs"
sleep 1
for path in "/v1/recommendation?target_ms=250&concurrency=4" /healthz; do
	wrk -t2 -c32 -d8s --latency "http://127.0.0.1:$PORT$path" >"$TMP/wrk" 2>&1
	p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 }
		else if (v ~ /ms$/) sub(/ms/, "", v); else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }
		print v }' "$TMP/wrk")
	! grep -qE "Non-2xx|Socket errors" "$TMP/wrk" && ok "L2 $path: no errors during a benchmark" || bad "L2 $path: errors"
	if [ -z "${SANITIZED:-}" ]; then
		awk -v p="$p99" 'BEGIN { exit !(p < 50) }' && ok "L2 $path: p99 $p99 ms < 50 ms" || bad "L2 $path: p99 $p99 ms"
	fi
done
grep -q '"status":"running"' <(curl -s "http://127.0.0.1:$PORT/v1/runs") && ok "L2: the benchmark was running throughout" || bad "L2: no benchmark running"
stop_daemon
finish
