# tests/store/pg.sh: a throw-away PostgreSQL server for the tests, sourced.
#
#   pg_start DIR   initdb in DIR/pg (as nobody when run as root: PostgreSQL
#                  refuses root), then start it on 127.0.0.1 at a free port
#                  with its socket in DIR/pg; sets PG_URL (the database
#                  "postgres"), PG_BASE (the URL without a database name)
#                  and PG_PID (the postmaster)
#   pg_launch      start it again (same directory, same port)
#   pg_crash       SIGKILL the postmaster and every process it started
#   pg_stop        a fast shutdown; waits for it to end
#   pg_createdb N  a new empty database N
#
# fsync is off: the tests kill processes, not the machine, and a killed
# server's writes are in the page cache; it makes the suite several times
# faster.
# Processes are stopped by the PIDs this file started, never by name.

PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
PG_PID=
PG_DIR=
PG_PORT=

PG_AS=()
if [ "$(id -u)" = 0 ]; then
	PG_AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi

pg_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pg_start() {
	if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/initdb" ]; then
		echo "PostgreSQL is not installed (make deps installs it)" >&2
		return 1
	fi
	PG_DIR=$1/pg
	mkdir -p "$PG_DIR"
	if [ "$(id -u)" = 0 ]; then
		chmod 711 "$1"
		chown nobody:nogroup "$PG_DIR"
	fi
	if ! "${PG_AS[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U pwtune \
	    -E UTF8 --no-sync >"$PG_DIR/initdb.log" 2>&1; then
		cat "$PG_DIR/initdb.log" >&2
		return 1
	fi
	PG_PORT=$(pg_free_port)
	PG_BASE="postgresql://pwtune@127.0.0.1:$PG_PORT"
	PG_URL="$PG_BASE/postgres"
	pg_launch
}

pg_launch() {
	local i
	# exec: $! is then the postmaster itself (setpriv execs too).
	(exec "${PG_AS[@]}" "$PG_BIN/postgres" -D "$PG_DIR/data" -k "$PG_DIR" \
	    -h 127.0.0.1 -p "$PG_PORT" -c max_connections=200 -c fsync=off \
	    >>"$PG_DIR/server.log" 2>&1) &
	PG_PID=$!
	for i in $(seq 1 300); do
		if pg_isready -q -U pwtune -d postgres -h 127.0.0.1 -p "$PG_PORT" 2>/dev/null; then
			return 0
		fi
		if ! pg_alive "$PG_PID"; then
			echo "PostgreSQL did not start:" >&2
			tail -n 20 "$PG_DIR/server.log" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "PostgreSQL not ready after 30 s" >&2
	return 1
}

# The children of a process, from /proc (field 4 of stat is the parent).
pg_children() {
	awk -v p="$1" '{ line = $0; sub(/^.*\) /, "", line);
	    split(line, f, " ");
	    if (f[2] == p) { n = FILENAME; gsub(/[^0-9]/, "", n); print n } }' \
	    /proc/[0-9]*/stat 2>/dev/null
}

pg_crash() {
	local kids
	[ -n "$PG_PID" ] || return 0
	kids=$(pg_children "$PG_PID")
	kill -KILL "$PG_PID" $kids 2>/dev/null
	wait "$PG_PID" 2>/dev/null
	PG_PID=
}

# Running, and not a zombie waiting for this shell to collect it.
pg_alive() {
	local state
	state=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -n "$state" ] && [ "$state" != Z ]
}

pg_stop() {
	local i
	[ -n "$PG_PID" ] || return 0
	kill -INT "$PG_PID" 2>/dev/null
	for i in $(seq 1 300); do
		pg_alive "$PG_PID" || break
		sleep 0.1
	done
	pg_alive "$PG_PID" && pg_crash
	wait "$PG_PID" 2>/dev/null
	PG_PID=
}

pg_createdb() {
	psql -q -X -v ON_ERROR_STOP=1 "$PG_URL" \
	    -c "CREATE DATABASE \"$1\"" >/dev/null
}
