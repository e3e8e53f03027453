#!/usr/bin/env bash
# Connections (RELIABILITY L3, L5, S6): past the connection limit, extra
# sockets are closed within a second and service comes back whole; slow
# clients do not starve health probes and are dropped at the timeout; by
# default pwtuned listens on 127.0.0.1 only.
. "$(dirname "$0")/../api/lib.sh"
seed_store
# The per-address limit is the one a single client meets: above it,
# libmicrohttpd accepts and closes at once. (Above the global limit, new
# connections wait in the kernel's backlog until a slot frees.)
start_daemon PWTUNED_MAX_CONNECTIONS_PER_IP=20 PWTUNED_CONNECTION_TIMEOUT=2
python3 - "$PORT" <<'PY' && ok "L3: 50 idle sockets on a per-address limit of 20: the excess closed within 1 s, then 100/100" || bad "L3"
import http.client, socket, sys, time
port = int(sys.argv[1])
socks = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(50)]
t0 = time.monotonic()
closed = 0
for s in socks:
    s.settimeout(max(0.01, 1.0 - (time.monotonic() - t0)))
    try:
        if s.recv(1) == b"":
            closed += 1
    except socket.timeout:
        pass
    except OSError:
        closed += 1
assert closed >= 30, closed
for s in socks:
    s.close()
time.sleep(0.2)
good = 0
for _ in range(100):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", "/healthz"); r = c.getresponse(); r.read()
    good += r.status == 200
    c.close()
assert good == 100, good
PY
python3 - "$PORT" <<'PY' && ok "L5: 10 slow clients: probes 100 % OK, the slow ones dropped at the 2 s timeout" || bad "L5"
import http.client, socket, sys, time
port = int(sys.argv[1])
slow = []
for i in range(10):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")   # never ends
    slow.append(s)
ok = 0
t0 = time.monotonic()
for _ in range(20):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", "/healthz"); r = c.getresponse(); r.read()
    ok += r.status == 200
    c.close()
    time.sleep(0.05)
assert ok == 20, ok
dropped = 0
for s in slow:
    s.settimeout(max(0.1, 4.0 - (time.monotonic() - t0)))
    try:
        s.sendall(b"X-Slow: 1\r\n")
        if s.recv(1) == b"":
            dropped += 1
    except (socket.timeout, OSError) as e:
        dropped += not isinstance(e, socket.timeout)
assert time.monotonic() - t0 < 5
assert dropped == 10, dropped
PY
stop_daemon

# S6: with no listen setting, only loopback.
if ! (exec 3<>/dev/tcp/127.0.0.1/8421) 2>/dev/null; then
	: >"$TMP/log"
	env PWTUNED_STARTUP_PROFILE=none PWTUNED_CHECK_BUDGET=0 "$PWTUNED" --state-dir "$VAR" >"$TMP/log" 2>&1 &
	PID=$!
	for _ in $(seq 100); do grep -q "listening on" "$TMP/log" && break; sleep 0.05; done
	grep -q "listening on 127.0.0.1:8421" "$TMP/log" && ok "S6: default listen 127.0.0.1:8421" || bad "S6: $(grep listening "$TMP/log")"
	stop_daemon
else
	echo "skipped: S6 (port 8421 is in use here)"
fi
finish
