#!/usr/bin/env bash
# bench/new_questions.sh: a kept answer and /healthz while a client asks
# new questions in a loop (each its own target_ms, objective=attacker-cost,
# floor=none, concurrency: every one a search, no token needed), against
# the same daemon idle. wrk, 127.0.0.1, each daemon stopped by its PID.
#
# Usage: bench/new_questions.sh [BUILD_DIR] [SECONDS] [OTHER_BUILD_DIR]
#   (default build, 10 s). With OTHER_BUILD_DIR, its pwtuned is timed the
#   same way right after, on the same store, for a side-by-side table.
# Prints, per build: the kept answer's p50 and p99 alone, the same beside
# the flood, /healthz beside it, and how the flood's questions were
# answered (200, 429).
set -u
BUILD=${1:-build}
SECS=${2:-10}
OTHER=${3:-}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)"; exit 1; }
TMP=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

mkdir -m 700 "$TMP/seed"
"$BUILD/cli/pwtune" bench --m 8MiB,16MiB,32MiB,64MiB,128MiB --t 1,3 --backend libsodium \
	--repeats 2 --db "$TMP/seed/pwtune.db" --no-json -q >/dev/null || { echo "cannot seed"; exit 1; }

cat >"$TMP/flood.lua" <<'LUA'
-- a new question each request: its own target, k and objective
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
request = function()
	return wrk.format("GET", string.format(
		"/v1/recommendation?target_ms=%d&concurrency=%d&objective=attacker-cost&floor=none",
		math.random(1000, 600000), math.random(1, 64)))
end
LUA
# p50 p99 (ms) of a wrk --latency output
pcts() {
	awk '$1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 }
	function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
	END { printf "%.2f %.2f", ms(p50), ms(p99) }' "$1"
}

one() {	# one BUILD: a fresh copy of the store, a daemon, the three runs
	local b=$1 port
	rm -rf "$TMP/var"; cp -a "$TMP/seed" "$TMP/var"
	PWTUNED_STARTUP_PROFILE=none PWTUNED_PROBES=none PWTUNED_CHECK_BUDGET=0 \
		"$b/daemon/pwtuned" --state-dir "$TMP/var" --listen 127.0.0.1:0 >"$TMP/log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/log")
		[ -n "$port" ] && break; sleep 0.05
	done
	local base="http://127.0.0.1:$port"
	curl -s -o /dev/null "$base/v1/recommendation?target_ms=250"
	wrk -t1 -c1 -d"${SECS}s" --latency "$base/v1/recommendation?target_ms=250" >"$TMP/alone" 2>&1
	wrk -t2 -c60 -d"$((SECS + 2))s" -s "$TMP/flood.lua" --latency "$base" >"$TMP/flood" 2>&1 &
	local fl=$!
	sleep 1
	wrk -t1 -c1 -d"${SECS}s" --latency "$base/v1/recommendation?target_ms=250" >"$TMP/beside" 2>&1 &
	local bs=$!
	wrk -t1 -c1 -d"${SECS}s" --latency "$base/healthz" >"$TMP/health" 2>&1
	wait "$bs" "$fl"
	kill "$pid"; wait "$pid" 2>/dev/null; pid=""
	# The flood's answers: all, and those not 2xx (429) from wrk's lines.
	local total non2xx
	total=$(awk '/requests in/ { print $1 }' "$TMP/flood")
	non2xx=$(awk '/Non-2xx/ { print $NF }' "$TMP/flood")
	printf '%-44s %8s %8s %8s %8s %8s %8s %9s %9s\n' "$b" $(pcts "$TMP/alone") \
		$(pcts "$TMP/beside") $(pcts "$TMP/health") "${total:-0}" "${non2xx:-0}"
}

printf '%-44s %8s %8s %8s %8s %8s %8s %9s %9s\n' build "kept p50" "p99" "beside p50" \
	"p99" "/healthz p50" "p99" "questions" "not 2xx"
one "$BUILD"
[ -n "$OTHER" ] && one "$OTHER"
exit 0
