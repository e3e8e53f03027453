#!/usr/bin/env bash
# The store suite (test_db) against a real PostgreSQL server: a throw-away
# cluster in a temporary directory, on 127.0.0.1, run as nobody when the
# test runs as root. The same binary runs against SQLite as unit.test_db.
set -u
SUITE=${SUITE:?SUITE must name test_db}
. "$(dirname "$0")/pg.sh"
tmp=$(mktemp -d)
cleanup() { pg_stop; rm -rf "$tmp"; }
trap cleanup EXIT
pg_start "$tmp" || exit 1
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT, pid $PG_PID"
PWTUNE_TEST_PG="$PG_BASE" "$SUITE" "$@"
rc=$?
# On a failure, what the server said (a deadlock, a refused connection).
if [ "$rc" != 0 ] && grep -qE "ERROR|FATAL|PANIC" "$PG_DIR/server.log"; then
	echo "the server's log:" >&2
	grep -E -A2 "ERROR|FATAL|PANIC" "$PG_DIR/server.log" | tail -n 40 >&2
fi
exit "$rc"
