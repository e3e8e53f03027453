#!/usr/bin/env bash
# bench/api_load.sh: GET /v1/recommendation under wrk, side by side with a
# bare libmicrohttpd server (bench/bare_server.c) returning a body of the
# same size; then the same while a benchmark runs, /healthz included.
# Prints req/s, p99 and the ratio pwtuned / bare (goal: at least 0.85).
#
# Usage: bench/api_load.sh [BUILD_DIR] [SECONDS]   (default build, 10 s)
set -u
BUILD=${1:-build}
SECS=${2:-10}
PWTUNE=$BUILD/cli/pwtune
PWTUNED=$BUILD/daemon/pwtuned
BARE=$BUILD/bench/bench_bare_server
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)"; exit 1; }
TMP=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT

mkdir -m 700 "$TMP/var"
"$PWTUNE" bench --m 8MiB,16MiB,32MiB,64MiB,128MiB --t 1,3 --backend libsodium \
	--repeats 2 --db "$TMP/var/pwtune.db" --no-json -q >/dev/null
PWTUNED_STARTUP_PROFILE=none PWTUNED_COOLDOWN=0 "$PWTUNED" --state-dir "$TMP/var" \
	--listen 127.0.0.1:0 >"$TMP/log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/log")
	[ -n "$port" ] && break; sleep 0.05
done
URL="http://127.0.0.1:$port/v1/recommendation?target_ms=250&concurrency=8"
size=$(curl -s "$URL" | wc -c)
"$BARE" "$size" 2 >"$TMP/bare" &
pids+=($!)
for _ in $(seq 100); do
	bport=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$TMP/bare")
	[ -n "$bport" ] && break; sleep 0.05
done

# run NAME URL: one wrk run; prints "req/s p99_ms".
run() {
	wrk -t2 -c64 -d"${SECS}s" --latency "$2" >"$TMP/wrk" 2>&1
	rps=$(awk '/^Requests\/sec/ { print $2 }' "$TMP/wrk")
	p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 }
		else if (v ~ /ms$/) sub(/ms/, "", v); else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }
		print v }' "$TMP/wrk")
	errs=$(awk '/Non-2xx|Socket errors/ { print }' "$TMP/wrk" | tr '\n' ' ')
	echo "$rps $p99 ${errs:-0 errors}"
}

echo "wrk -t2 -c64 -d${SECS}s, body $size bytes, 2 HTTP threads each; alternating A B A B"
echo
echo "| server | run | req/s | p99 ms | errors |"
echo "|---|---|---|---|---|"
ours=() bare=()
for i in 1 2; do
	read -r r p e < <(run pwtuned "$URL"); ours+=("$r"); echo "| pwtuned /v1/recommendation | $i | $r | $p | $e |"
	read -r r p e < <(run bare "http://127.0.0.1:$bport/"); bare+=("$r"); echo "| bare libmicrohttpd | $i | $r | $p | $e |"
done
python3 -c "
o = [float(x) for x in '${ours[*]}'.split()]; b = [float(x) for x in '${bare[*]}'.split()]
print('\npwtuned / bare: %.3f (mean of %d runs each)' % (sum(o) / sum(b), len(o)))"

# While a benchmark runs (the quick profile, started through the API).
curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$TMP/var/token")" \
	"http://127.0.0.1:$port/v1/runs"
sleep 1
echo
echo "While a quick benchmark runs:"
echo
echo "| endpoint | req/s | p99 ms | errors |"
echo "|---|---|---|---|"
read -r r p e < <(run pwtuned "$URL"); echo "| /v1/recommendation | $r | $p | $e |"
read -r r p e < <(run pwtuned "http://127.0.0.1:$port/healthz"); echo "| /healthz | $r | $p | $e |"
