# tests/fleet/lib.sh: daemons of a fleet on one PostgreSQL store. Sourced
# by one scenario per file, after tests/api/lib.sh (req, expect_http,
# expect_body: set PORT to the daemon asked) and tests/store/pg.sh.
#
#   as_host NAME SLOWDOWN CMD...   run CMD as host NAME: its own machine id
#                                  and host name (mount and UTS namespaces),
#                                  every hash SLOWDOWN times slower (slow.c)
#   start_host NAME SLOWDOWN [VAR=VALUE...]   pwtuned as host NAME on the
#                                  store, group web; sets PID_NAME, PORT_NAME
#   stop_hosts                     SIGTERM each daemon (by its PID), exit 0
#
# Needs root (namespaces, mounts): the scenario exits 77 otherwise.
. "$(dirname "$0")/../api/lib.sh" || exit 1
. "$(dirname "$0")/../store/pg.sh" || exit 1
: "${SLOW_LIB:?SLOW_LIB must name the slow-host library}"
if [ "$(id -u)" != 0 ]; then
	echo "skipped: hosts of a fleet are simulated with namespaces (root)"
	exit 77
fi
HOSTS=()
# A sanitizer's runtime wants to be loaded first; the preload comes later.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"

cleanup_fleet() {
	local h pid
	for h in "${HOSTS[@]}"; do
		pid=$(eval echo "\${PID_$h:-}")
		[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	pg_stop
	cleanup_daemon
}
trap cleanup_fleet EXIT

# host_cmd NAME SLOWDOWN: the words that run a command as that host, in
# HOST_CMD. Every program in it execs the next, so $! of a command started
# with it in the background is the command's own PID.
host_cmd() {
	printf '%032x\n' "$(cksum <<<"$1" | cut -d' ' -f1)" >"$TMP/machine-id-$1"
	HOST_CMD=(unshare --mount --uts --propagation private sh -c '
		mount --bind "$1" /etc/machine-id || exit 1
		hostname "$2" || exit 1
		shift 2
		exec "$@"' sh "$TMP/machine-id-$1" "fleet-$1"
		env LD_PRELOAD="$SLOW_LIB" PWTUNE_TEST_SLOWDOWN="$2")
}

as_host() {
	host_cmd "$1" "$2"
	shift 2
	"${HOST_CMD[@]}" "$@"
}

start_host() {
	local name=$1 slow=$2 port
	shift 2
	mkdir -p "$TMP/$name"
	chmod 700 "$TMP/$name"
	: >"$TMP/$name.log"
	host_cmd "$name" "$slow"
	"${HOST_CMD[@]}" env PWTUNED_STARTUP_PROFILE=none PWTUNED_PROBES=none PWTUNED_CHECK_BUDGET=0 \
		PWTUNED_COOLDOWN=0 PWTUNED_STORE="$PG_URL" PWTUNED_GROUP=web "$@" \
		"$PWTUNED" --state-dir "$TMP/$name" --listen 127.0.0.1:0 \
		>>"$TMP/$name.log" 2>&1 &
	eval "PID_$name=$!"
	HOSTS+=("$name")
	for _ in $(seq 200); do
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/$name.log")
		if [ -n "$port" ]; then
			eval "PORT_$name=$port"
			return 0
		fi
		sleep 0.05
	done
	echo "pwtuned $name did not start:"; cat "$TMP/$name.log"
	exit 1
}

# A small grid each host measures itself with into the store.
GRID=(--m 8MiB,16MiB,32MiB,64MiB --t 1,3 --backend libsodium --repeats 3)
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$PG_URL" -c "$1"; }

# bench_hosts NAME:SLOWDOWN...: each host measures itself into the store.
bench_hosts() {
	local h
	for h in "$@"; do
		as_host "${h%:*}" "${h#*:}" "$PWTUNE" bench "${GRID[@]}" \
			--db "$PG_URL" --no-json -q >"$TMP/bench.out" 2>&1 ||
			{ bad "bench on host ${h%:*}"; cat "$TMP/bench.out"; }
	done
}

stop_hosts() {
	local h pid rc
	for h in "${HOSTS[@]}"; do
		pid=$(eval echo "\${PID_$h:-}")
		[ -n "$pid" ] || continue
		kill -TERM "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		rc=$?
		eval "PID_$h="
		if [ $rc -ne 0 ]; then
			bad "pwtuned $h exited with status $rc on SIGTERM"
			tail -20 "$TMP/$h.log"
		fi
	done
}
