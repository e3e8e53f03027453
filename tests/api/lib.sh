# tests/api/lib.sh: start a real pwtuned on 127.0.0.1 with a free port,
# speak HTTP to it with curl, stop it by its PID. Sourced by one scenario
# per file. PWTUNE and PWTUNED name the binaries (set by ctest).
. "$(dirname "$0")/../cli/lib.sh" || exit 1
: "${TMP:?the common test library did not load}"
: "${PWTUNED:?PWTUNED must name the pwtuned binary}"
PID=""
PORT=""
VAR="$TMP/var"
mkdir -p "$VAR"
chmod 700 "$VAR"

cleanup_daemon() {
	# On a failure, the daemon's own words (sanitizer reports too).
	if [ "${failed:-0}" -gt 0 ] && [ -s "$TMP/log" ]; then
		echo "--- pwtuned log (last 40 lines)"
		tail -40 "$TMP/log"
	fi
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
		kill -9 "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup_daemon EXIT

# A finished run of this host in the store: a small grid, 2 rounds a point.
seed_store() {	# seed_store [BACKENDS]: libsodium unless given
	"$PWTUNE" bench --m 8MiB,16MiB,32MiB,64MiB --t 1,3 --backend "${1:-libsodium}" \
		--repeats 2 --db "$VAR/pwtune.db" --no-json -q >/dev/null 2>&1 ||
		{ echo "cannot seed the store"; exit 1; }
}

# start_daemon [ENV=VALUE ...] -- [pwtuned options]: returns when it listens.
# WRAP (words) runs pwtuned under a program that execs it or keeps its PID
# (setpriv, valgrind); START_TRIES x 50 ms is how long to wait (100).
start_daemon() {
	local envs=() wrap=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
	[ "${1:-}" = "--" ] && shift
	[ -n "${WRAP:-}" ] && read -r -a wrap <<<"$WRAP"
	: >"$TMP/log"
	env PWTUNED_STARTUP_PROFILE=none PWTUNED_PROBES=none PWTUNED_COOLDOWN=0 \
		PWTUNED_CHECK_BUDGET=0 "${envs[@]}" \
		"${wrap[@]}" "$PWTUNED" --state-dir "$VAR" --listen 127.0.0.1:0 "$@" \
		>>"$TMP/log" 2>&1 &
	PID=$!
	for _ in $(seq "${START_TRIES:-100}"); do
		PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/log")
		[ -n "$PORT" ] && return 0
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "pwtuned did not start:"; cat "$TMP/log"
	exit 1
}

# SIGTERM must end pwtuned with status 0: in a sanitizer build, a leak or
# an error report at exit makes it non-zero, and the scenario fails.
stop_daemon() {
	local rc t=""
	# S3, in every scenario: the token is in no argument, environment
	# variable or log line of pwtuned (the log checked once it stopped).
	[ -r "$VAR/token" ] && t=$(cat "$VAR/token" 2>/dev/null)
	if [ -n "$t" ] && [ -r "/proc/$PID/cmdline" ]; then
		if tr '\0' '\n' <"/proc/$PID/cmdline" | grep -qF "$t" ||
			tr '\0' '\n' <"/proc/$PID/environ" 2>/dev/null | grep -qF "$t"; then
			bad "S3: the token is in pwtuned's argv or environment"
		fi
	fi
	kill -TERM "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	rc=$?
	PID=""
	if [ -n "$t" ] && grep -qF "$t" "$TMP/log"; then
		bad "S3: the token is in pwtuned's log"
	fi
	if [ $rc -ne 0 ]; then
		bad "pwtuned exited with status $rc on SIGTERM"
		grep -A12 -E "ERROR: |leak of" "$TMP/log" | head -40
	fi
}

TOKEN() { cat "$VAR/token"; }

# req METHOD PATH [curl options...]: status in $TMP/status, headers in
# $TMP/headers, body in $TMP/body.
req() {
	local method=$1 path=$2
	shift 2
	curl -s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' \
		-X "$method" --max-time 10 "$@" "http://127.0.0.1:$PORT$path" \
		>"$TMP/status" 2>/dev/null
}

# wait_run ID REGEX [TRIES]: GET /v1/runs/ID every 100 ms (TRIES times,
# 100 by default) until the body matches REGEX (grep -E); the last answer
# stays in $TMP/body for expect_body.
wait_run() {
	local id=$1 re=$2
	for _ in $(seq "${3:-100}"); do
		req GET "/v1/runs/$id"
		grep -qE "$re" "$TMP/body" && return 0
		sleep 0.1
	done
	return 1
}

# expect_http WANT NAME METHOD PATH [curl options...]
expect_http() {
	local want=$1 name=$2
	shift 2
	req "$@"
	if [ "$(cat "$TMP/status")" = "$want" ]; then
		ok "$name"
	else
		bad "$name: HTTP $(cat "$TMP/status"), wanted $want"
		head -c 400 "$TMP/body" | sed 's/^/  body: /'; echo
	fi
}

# expect_body NAME PYTHON-EXPRESSION over j (the JSON body) and h (headers).
expect_body() {
	local name=$1 expr=$2
	if python3 - "$TMP/body" "$TMP/headers" "$expr" <<'PY'
import json, re, sys
body = open(sys.argv[1]).read()
try:
    j = json.loads(body)
except ValueError:
    j = None
h = {}
for line in open(sys.argv[2]).read().splitlines()[1:]:
    if ":" in line:
        k, v = line.split(":", 1)
        h[k.strip().lower()] = v.strip()
sys.exit(0 if eval("(" + sys.argv[3].strip() + ")") else 1)
PY
	then ok "$name"; else bad "$name: $expr"; head -c 400 "$TMP/body"; echo; fi
}

# expect_quick NAME WANT PATH: five GETs of PATH, 200 ms apart, each must
# answer WANT in under 100 ms (what must not wait on anything slow).
expect_quick() {
	local name=$1 want=$2 path=$3 worst=0 got t codes=""
	for _ in 1 2 3 4 5; do
		read -r got t < <(curl -s -o /dev/null -w '%{http_code} %{time_total}\n' \
			--max-time 20 "http://127.0.0.1:$PORT$path")
		codes="$codes $got"
		worst=$(python3 -c "print(max($worst, $t))")
		sleep 0.2
	done
	if [ "$codes" = "$(printf " $want%.0s" 1 2 3 4 5)" ] &&
		python3 -c "import sys; sys.exit(0 if $worst < 0.1 else 1)"; then
		ok "$name: $want in at most $(python3 -c "print(round($worst * 1000, 1))") ms"
	else
		bad "$name: statuses$codes, the slowest $worst s (want $want in < 0.1 s)"
	fi
}

# wait_log REGEX SECONDS: until the daemon's log has a line matching.
wait_log() {
	local i
	for i in $(seq $(($2 * 10))); do
		grep -qE "$1" "$TMP/log" && return 0
		sleep 0.1
	done
	return 1
}

# Others' runnable tasks now, into OTHERS: read by this shell itself (the
# one runnable task it takes away), for a command's fork would count its
# parent, runnable until it waits (0.8 on average here, on a quiet host,
# against 0.06 read so).
others_now() {
	local l1 l5 l15 run rest
	read -r l1 l5 l15 run rest </proc/loadavg
	OTHERS=$((${run%/*} - 1))
}

# The premise of every step: a quiet host (checks wait for one, and what
# they measure beside others is noise). After the suite's parallel part,
# the kernel may still be compacting memory and the like: wait for five
# quiet seconds (runnable tasks besides the reader under 0.4 on average
# over ten samples, as the daemon's watcher judges), 120 s at most. A host
# busy all that time (a neighbour on a shared machine: /proc/loadavg
# counts tasks ps does not show here) is one where the daemon rightly
# checks nothing: the test says so and is skipped (77), not failed.
# quiet_host_or_skip: returns once the host is quiet, or exits 77.
quiet_host_or_skip() {
	local ring=() sum=90 i j mean
	for i in $(seq 240); do
		others_now
		ring[$((i % 10))]=$OTHERS
		if [ "${#ring[@]}" -eq 10 ]; then
			sum=0
			for j in "${ring[@]}"; do sum=$((sum + j)); done
			[ $sum -lt 4 ] && break
		fi
		sleep 0.5
	done
	mean="$((sum / 10)).$((sum % 10))"
	echo "       the host before the test: others' runnable tasks $mean on average over 5 s"
	if [ $sum -ge 4 ]; then
		echo "skipped: the host was not quiet for 5 s within 120 s (others' runnable tasks $mean, 0.4 or more): checks wait for a quiet host"
		ps -eo pid,stat,pcpu,args | awk 'NR == 1 || $2 ~ /R/' | cut -c1-120 | sed 's/^/  /'
		exit 77
	fi
}

# Waits for a check: the daemon starts none until others' runnable tasks
# (this reader aside), averaged over two seconds, stayed under half a task
# for five seconds in a row (daemon/checks.c, CHECK_QUIET_S), so only a
# tenth of a second at the end of such five seconds counts against the
# wait (a host busy one second in two never gives the daemon its quiet,
# and is not one where a check was due), up to three times its seconds in
# all (a neighbour on a shared machine delays a check; it does not make a
# missing one pass). A check's own hashes count as busy too: they only
# lengthen the wait, never shorten it.
# wait_check REGEX SECONDS [COMMAND]: COMMAND (a function) runs once a
# second, first at once; QUIET is left at the tenths of a second that
# counted.
wait_check() {
	local ticks=0 ring=() sum j run=0
	QUIET=0
	WANT_QUIET=$(($2 * 10))
	while [ $QUIET -lt $(($2 * 10)) ] && [ $ticks -lt $(($2 * 30)) ]; do
		[ -n "${3:-}" ] && [ $((ticks % 10)) = 0 ] && "$3"
		grep -qE "$1" "$TMP/log" && return 0
		others_now
		ring[$((ticks % 20))]=$OTHERS
		sum=0
		for j in "${ring[@]}"; do sum=$((sum + j)); done
		# The two seconds' mean under 0.5: sum x 2 under the samples.
		if [ $((sum * 2)) -lt "${#ring[@]}" ]; then
			run=$((run + 1))
		else
			run=0
		fi
		[ $run -ge 50 ] && QUIET=$((QUIET + 1))
		ticks=$((ticks + 1))
		sleep 0.1
	done
	WAITED=$((ticks / 10))
	grep -qE "$1" "$TMP/log"
}

# never_checked WHAT: after a wait_check that found nothing, a failure
# when the host was quiet for all the seconds it asked (the daemon had
# them and did not check), else a line saying the part was not tried (a
# host busy that long is not a finding about the daemon).
never_checked() {
	if [ "$QUIET" -ge "$WANT_QUIET" ]; then
		bad "$1 was never checked in $((QUIET / 10)) quiet s"
	else
		echo "  (not tried: $1 was not checked in $WAITED s, the host quiet $((QUIET / 10)) s of them)"
	fi
}

