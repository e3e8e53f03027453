#!/usr/bin/env bash
# Socket activation: systemd-socket-activate holds 127.0.0.1:PORT and
# execs pwtuned with LISTEN_FDS=1; pwtuned serves on that socket (its own
# listen key points elsewhere and is not used), pwtuned --health agrees,
# SIGTERM ends it with 0. Then what pwtuned refuses: two sockets, and a
# descriptor that is not a listening socket.
. "$(dirname "$0")/../api/lib.sh"

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

for attempt in 1 2 3; do
	P=$(free_port)
	: >"$TMP/log"
	# -E passes these variables on; systemd-socket-activate execs pwtuned
	# in its own process, so $PID is pwtuned's PID.
	PWTUNED_STARTUP_PROFILE=none systemd-socket-activate -l "127.0.0.1:$P" \
		-E PWTUNED_STARTUP_PROFILE "$PWTUNED" --state-dir "$VAR" \
		--listen 127.0.0.1:1 >>"$TMP/log" 2>&1 &
	PID=$!
	sleep 0.3
	grep -q "Listening on 127.0.0.1:$P" "$TMP/log" && break
	kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; PID=""
done
[ -n "$PID" ] || { echo "FAIL: systemd-socket-activate did not listen"; cat "$TMP/log"; exit 1; }
PORT=$P
ok=""
for _ in $(seq 100); do
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT/healthz")
	[ "$code" = 200 ] && { ok=1; break; }
	sleep 0.05
done
[ -n "$ok" ] && ok "GET /healthz on the passed socket" || bad "no answer on the passed socket"
grep -q "socket activation: the listen key is not used" "$TMP/log" &&
	grep -q "listening on 127.0.0.1:$PORT" "$TMP/log" &&
	ok "the log names the passed socket" || bad "log: $(grep -i listen "$TMP/log")"
expect_http 200 "the API on it" GET /v1/runs
PWTUNED_LISTEN="127.0.0.1:$PORT" "$PWTUNED" --health >/dev/null &&
	ok "pwtuned --health: healthy" || bad "pwtuned --health"
start=$(date +%s%N)
stop_daemon
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -lt 2000 ] && ok "SIGTERM: exit 0 in $ms ms" || bad "SIGTERM took $ms ms"
PWTUNED_LISTEN="127.0.0.1:$PORT" "$PWTUNED" --health >/dev/null 2>&1 &&
	bad "pwtuned --health says healthy with nothing there" ||
	ok "pwtuned --health: unhealthy when nothing listens"

# Refusals: the exec'd program sees LISTEN_PID = its own PID.
exec 3</dev/null
out=$(PWTUNED_STARTUP_PROFILE=none bash -c 'export LISTEN_PID=$$ LISTEN_FDS=1; exec "$0" --state-dir "$1" --listen 127.0.0.1:0' \
	"$PWTUNED" "$VAR" 2>&1 </dev/null)
rc=$?
exec 3<&-
[ $rc -eq 1 ] && grep -q "descriptor 3 is not a stream socket" <<<"$out" &&
	ok "a passed descriptor that is no socket: refused, named" || bad "not a socket: rc $rc: $out"
out=$(bash -c 'export LISTEN_PID=$$ LISTEN_FDS=2; exec "$0" --state-dir "$1" --listen 127.0.0.1:0' \
	"$PWTUNED" "$VAR" 2>&1 </dev/null)
rc=$?
[ $rc -eq 1 ] && grep -q "takes exactly one" <<<"$out" &&
	ok "two passed sockets: refused" || bad "two sockets: rc $rc: $out"
# LISTEN_PID of another process: not ours, pwtuned binds its own.
start_daemon LISTEN_PID=1 LISTEN_FDS=1 --
expect_http 200 "LISTEN_PID of another process: pwtuned listens itself" GET /healthz
stop_daemon
finish
