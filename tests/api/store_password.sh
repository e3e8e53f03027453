#!/usr/bin/env bash
# D1: the password of a store URI shows nowhere: not in pwtuned's log at
# start or while it retries, not in GET /readyz (unauthenticated: it says
# whether the store is reachable, never libpq's words), not in a
# configuration line echoed on a bad value, not in pwtune's messages. The
# database is a closed port on 127.0.0.1: nothing leaves this machine.
. "$(dirname "$0")/lib.sh"
URI='postgresql://u:s3cr?t@127.0.0.1:1/x'

# no_secret NAME FILE: FILE does not hold the password (s3cr).
no_secret() {
	if grep -q 's3cr' "$2"; then
		bad "$1: shows the password"; grep 's3cr' "$2" | head -3 | sed 's/^/  /'
	else
		ok "$1"
	fi
}

start_daemon -- -d --db "$URI"
grep -q 'starting without it' "$TMP/log" && ok "pwtuned starts without the database" ||
	bad "pwtuned did not say it starts without the database"
grep -qF 'postgresql://u:***@127.0.0.1:1/x' "$TMP/log" && ok "the log names the store, redacted" ||
	bad "the log does not name the store redacted"
expect_http 503 "readyz: not ready" GET /readyz
no_secret "readyz body" "$TMP/body"
grep -q '127.0.0.1' "$TMP/body" && bad "readyz names the database's host" || ok "readyz: no libpq words"
sleep 2.5	# the job runner tries the database again every 2 s
expect_http 200 "healthz" GET /healthz
stop_daemon
no_secret "pwtuned log" "$TMP/log"

# A configuration line echoed on a bad value.
printf 'store = mysql://u:s3cr?t@127.0.0.1/x\n' >"$TMP/bad.conf"
"$PWTUNED" -n -c "$TMP/bad.conf" >"$TMP/out" 2>&1
[ $? -ne 0 ] && ok "another engine refused" || bad "another engine accepted"
grep -qF "$TMP/bad.conf:1:" "$TMP/out" && ok "the refusal names the line" || bad "no line named: $(cat "$TMP/out")"
no_secret "the echoed line" "$TMP/out"

# pwtune's messages about --db.
for args in "db list" "db check" "db export" "recommend --target-ms 100"; do
	# shellcheck disable=SC2086
	timeout 30 "$PWTUNE" $args --db "$URI" >"$TMP/out" 2>&1
	# A store that cannot be reached is the environment (pwtune(1)): 3.
	rc=$?
	[ "$rc" = 3 ] && ok "pwtune $args: exit 3" || bad "pwtune $args: exit $rc, not 3"
	no_secret "pwtune $args" "$TMP/out"
done
timeout 30 "$PWTUNE" db list --db 'mysql://u:s3cr?t@127.0.0.1/x' >"$TMP/out" 2>&1
no_secret "pwtune db list, another engine" "$TMP/out"
timeout 30 "$PWTUNE" bench --m 2MiB --t 1 --backend libsodium --repeats 2 --no-json -q \
	--db "$URI" >"$TMP/out" 2>&1
no_secret "pwtune bench --db" "$TMP/out"
finish
