#!/usr/bin/env bash
# The store pwtuned has open, opened beside it (D0, D8): an HTTP thread's
# own connection to it must not drop the SQLite lock the daemon's other
# connections hold (a close() of any descriptor of the file drops them
# all), or the next program to open the store and close it -- `pwtune
# bench --db`, `pwtune db import`, sqlite3, a backup -- takes itself for
# the last user and deletes the -wal and -shm under the daemon: what it
# wrote after was lost, and its next connection moved the store aside as
# corrupt and began an empty one. And a second pwtuned on the same state
# directory (make run twice) is refused before it opens the store.
. "$(dirname "$0")/lib.sh"
seed_store
start_daemon
T=$(TOKEN)
A=(-H "Content-Type: application/json" -H "Authorization: Bearer $T")
DB="$VAR/pwtune.db"
obs() {	# obs NAME STACK: POST an observation of STACK, expect 201
	expect_http 201 "$1" POST /v1/observations "${A[@]}" --data-binary \
		"{\"stack\": \"$2\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [40, 41, 42]}"
}
holds_lock() {	# holds_lock: does pwtuned hold a POSIX lock on the store?
	grep -qE "^[0-9]+: +POSIX +ADVISORY +(READ|WRITE) +$PID +[0-9a-f]+:[0-9a-f]+:$(stat -c %i "$DB") " /proc/locks
}
deleted() {	# deleted: the store's files pwtuned holds that are unlinked
	ls -l "/proc/$PID/fd" 2>/dev/null | grep -c "pwtune\.db.*(deleted)"
}

holds_lock && ok "pwtuned holds SQLite's lock on its store" || bad "no lock of pwtuned's on its store at start"
expect_http 200 "GET /v1/runs (an HTTP thread's connection to the store)" GET /v1/runs
holds_lock && ok "the lock is still held after an HTTP thread opened the store" ||
	bad "an HTTP thread's open dropped pwtuned's lock on its store"
obs "an observation before" svc-a

# Three other programs open the store and close it.
"$PWTUNE" bench --m 8MiB --t 1 --repeats 1 --backend libsodium --db "$DB" --no-json -q >/dev/null 2>&1
[ $? = 0 ] && ok "pwtune bench --db beside pwtuned" || bad "pwtune bench --db beside pwtuned failed"
"$PWTUNE" db import --db "$DB" "$SRC/tests/data/quick-run.json" >/dev/null 2>&1
[ $? = 0 ] && ok "pwtune db import beside pwtuned" || bad "pwtune db import beside pwtuned failed"
n=$(sqlite3 "$DB" 'SELECT count(*) FROM runs' 2>&1)
[ "$n" = 3 ] && ok "sqlite3 reads 3 runs beside pwtuned" || bad "sqlite3 beside pwtuned: '$n'"
[ -e "$DB-wal" ] && [ -e "$DB-shm" ] && ok "-wal and -shm still there" ||
	bad "the -wal or -shm was deleted under pwtuned: $(ls "$VAR" | tr '\n' ' ')"
[ "$(deleted)" = 0 ] && ok "pwtuned holds no unlinked file of its store" ||
	bad "pwtuned writes into $(deleted) unlinked files of its store"

obs "an observation after" svc-b
expect_http 202 "POST /v1/runs after" POST /v1/runs "${A[@]}" --data-binary '{"profile": "quick"}'
expect_body "the new run's id follows the three runs" "j['id'] == 4"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$TMP/body" 2>/dev/null)
[ -n "$id" ] && req DELETE "/v1/runs/$id" "${A[@]}"

# A second pwtuned on this state directory: refused before the store.
sum=$(sha256sum <"$DB")
env PWTUNED_STARTUP_PROFILE=none PWTUNED_PROBES=none timeout 20 "$PWTUNED" --state-dir "$VAR" \
	--listen 127.0.0.1:0 >"$TMP/second" 2>&1
rc=$?
[ $rc = 1 ] && ok "a second pwtuned on the state directory: exit 1" || bad "a second pwtuned: exit $rc"
grep -qF "state directory $VAR is in use by another pwtuned (PID $PID)" "$TMP/second" &&
	ok "it names the first and its PID" || { bad "the refusal does not say why"; cat "$TMP/second"; }
grep -q "store:" "$TMP/second" && bad "the second pwtuned opened the store" || ok "the second one never opened the store"
[ -e "$DB-wal" ] && holds_lock && ok "the first keeps its -wal and its lock" || bad "the second pwtuned took the first's -wal or lock"
expect_http 200 "the first still answers" GET /v1/observations

# Its port, taken, from another state directory: the refusal says what
# to do.
mkdir -m 700 "$TMP/other"
env PWTUNED_STARTUP_PROFILE=none PWTUNED_PROBES=none timeout 20 "$PWTUNED" --state-dir "$TMP/other" \
	--listen "127.0.0.1:$PORT" >"$TMP/port" 2>&1
grep -qF "Address already in use (another program listens there: give this one another port, --listen ADDRESS:PORT)" "$TMP/port" &&
	ok "a port in use: says to give another with --listen" || { bad "a port in use: no advice"; cat "$TMP/port"; }
# ... and makes nothing: no state directory, no store.
env PWTUNED_STARTUP_PROFILE=none PWTUNED_PROBES=none timeout 20 "$PWTUNED" --state-dir "$TMP/new-state" \
	--listen "127.0.0.1:$PORT" >"$TMP/port2" 2>&1
rc=$?
[ $rc = 1 ] && [ ! -e "$TMP/new-state" ] && ok "a port in use: exit 1, no state directory made" ||
	{ bad "a port in use: exit $rc, $(ls -A "$TMP/new-state" 2>&1 | tr '\n' ' ')"; cat "$TMP/port2"; }
# The same state directory and port (make run twice): the first pwtuned
# and its PID are named, not the port.
env PWTUNED_STARTUP_PROFILE=none PWTUNED_PROBES=none timeout 20 "$PWTUNED" --state-dir "$VAR" \
	--listen "127.0.0.1:$PORT" >"$TMP/twice" 2>&1
grep -qF "state directory $VAR is in use by another pwtuned (PID $PID)" "$TMP/twice" &&
	ok "make run twice: the first pwtuned and its PID named" || { bad "make run twice: $(cat "$TMP/twice")"; }
grep -qF "Address already in use" "$TMP/twice" &&
	ok "... after the listener's own error" || bad "make run twice: the listener's error is lost: $(cat "$TMP/twice")"
holds_lock && ok "... and the first keeps its lock" || bad "the first lost its lock"

stop_daemon
ls "$VAR"/pwtune.db.corrupt-* >/dev/null 2>&1 && bad "the store was moved aside as corrupt: $(ls "$VAR" | tr '\n' ' ')" ||
	ok "nothing moved aside"
n=$(sqlite3 "$DB" "SELECT count(DISTINCT stack) FROM observations WHERE stack IN ('svc-a', 'svc-b')" 2>&1)
[ "$n" = 2 ] && ok "both observations are in the store" || bad "observations in the store: '$n' of 2"
n=$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE status = 'done'" 2>&1)
[ "$n" = 3 ] && ok "the three runs are in the store, done" || bad "done runs in the store: '$n' of 3"

# The lock is the state directory's: once the first stopped, one starts.
start_daemon
expect_http 200 "a daemon starts on the state directory once the first stopped" GET /v1/runs
[ "$(cat "$VAR/pwtuned.lock")" = "$PID" ] && ok "pwtuned.lock holds its PID" ||
	bad "pwtuned.lock holds '$(cat "$VAR/pwtuned.lock")', not $PID"
stop_daemon

# A lock file that is not a file: a link (to another file) and a
# directory are refused, named, and left as they are.
for kind in link dir; do
	L="$TMP/l-$kind"
	mkdir -m 700 "$L"
	if [ $kind = link ]; then echo keep >"$TMP/target"; ln -s "$TMP/target" "$L/pwtuned.lock"
	else mkdir "$L/pwtuned.lock"; fi
	env PWTUNED_STARTUP_PROFILE=none PWTUNED_PROBES=none timeout 20 "$PWTUNED" --state-dir "$L" \
		--listen 127.0.0.1:0 >"$TMP/lock-$kind" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -qF "$L/pwtuned.lock: " "$TMP/lock-$kind" && ! grep -q "listening on" "$TMP/lock-$kind" &&
		ok "pwtuned.lock as a $kind: refused, named" || { bad "pwtuned.lock as a $kind: exit $rc"; cat "$TMP/lock-$kind"; }
done
[ "$(cat "$TMP/target")" = keep ] && [ -d "$TMP/l-dir/pwtuned.lock" ] && ok "the link's target and the directory left as they were" ||
	bad "a lock file's stand-in was changed"
finish
