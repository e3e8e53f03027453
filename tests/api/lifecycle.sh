#!/usr/bin/env bash
# The daemon's life: -n, hostile configuration (B12), readiness on an
# emulated NOTIFY_SOCKET within 2 s (F15), SIGTERM idle within 2 s and
# during a benchmark within 10 s with the run marked interrupted (F12),
# SIGHUP (F13), a restart serving the stored model at once, a read-only
# state directory (F6).
. "$(dirname "$0")/lib.sh"

# Configuration. -n checks what start-up checks, the state directory too:
# one this user can write (the default, /var/lib/pwtuned, needs root).
cat >"$TMP/good.conf" <<CONF
# a comment
state_dir = $VAR
listen = 127.0.0.1:8421
log_level = debug   # trailing comment
memory_max = 1GiB
cooldown = 30
CONF
"$PWTUNED" -n -c "$TMP/good.conf" >"$TMP/out" 2>&1 && grep -qx "configuration OK" "$TMP/out" && ok "-n: configuration OK" || bad "-n on a good file"
hostile() {	# hostile NAME LINE EXPECTED
	printf 'log_level = info\n%s\n' "$2" >"$TMP/bad.conf"
	"$PWTUNED" -n -c "$TMP/bad.conf" >"$TMP/out" 2>&1
	if [ $? -ne 0 ] && grep -qF "$TMP/bad.conf:2:" "$TMP/out" && grep -qF "$3" "$TMP/out"; then
		ok "refused: $1"
	else
		bad "$1: $(cat "$TMP/out")"
	fi
}
hostile "unknown key" "listn = 127.0.0.1:1" "unknown key listn"
hostile "negative number" "max_connections = -5" "max_connections must be a whole number"
hostile "huge number" "threads = 99999999999" "threads must be a whole number from 1 to 64"
hostile "request_timeout 0" "request_timeout = 0" "request_timeout must be a whole number from 1 to 600"
hostile "no value" "cooldown" "expected key = value"
hostile "bad listen" "listen = localhost" "listen must be ADDRESS:PORT"
hostile "bad size" "memory_max = lots" "memory_max must be a size"
hostile "bad level" "log_level = loud" "log_level must be"
hostile "a verify target of 0 ms" "verify_targets = 0" "verify_targets takes none, or at most 8 targets"
hostile "nine verify targets" "verify_targets = 1,2,3,4,5,6,7,8,9" "verify_targets takes none, or at most 8 targets"
hostile "empty verify targets" "verify_targets = ," "verify_targets is empty: write none"
hostile "a store of another engine" "store = mysql://db/pwtune" "store must be a file path or a postgresql:// URI"
hostile "the older key, another engine" "db = redis://cache" "store must be a file path or a postgresql:// URI"
hostile "a group with a space" "group = web tier" "group may hold letters, digits"
hostile "a group of 64 bytes" "group = $(printf 'g%.0s' $(seq 64))" "group is longer than 63 characters"
hostile "fleet_max_age past ten years" "fleet_max_age = 999999999" "fleet_max_age must be a whole number from 0 to 315360000"
if [ -n "${SRC:-}" ]; then
	"$PWTUNED" -n -c "$SRC/systemd/pwtuned.conf" --state-dir "$VAR" >/dev/null 2>&1 && ok "the documented pwtuned.conf passes -n" || bad "systemd/pwtuned.conf fails -n"
fi
PWTUNED_THREADS=0 "$PWTUNED" -n --state-dir "$VAR" >"$TMP/out" 2>&1
[ $? -ne 0 ] && grep -q "PWTUNED_THREADS" "$TMP/out" && ok "refused: bad environment value" || bad "env: $(cat "$TMP/out")"
PWTUNED_COOLDOWN=5 "$PWTUNED" -n -c "$TMP/good.conf" --listen 127.0.0.1:9999 >/dev/null 2>&1 && ok "-n with env and flags" || bad "env and flags"

# Precedence: defaults < file < environment < flags (seen in the log format).
printf 'log_format = json\n' >"$TMP/json.conf"
fmt() { head -1 "$TMP/log" | cut -c1; }
start_daemon -- -c "$TMP/json.conf"; stop_daemon
[ "$(fmt)" = "{" ] && ok "the file sets the log format" || bad "file ignored"
start_daemon PWTUNED_LOG_FORMAT=text -- -c "$TMP/json.conf"; stop_daemon
[ "$(fmt)" = "2" ] && ok "the environment overrides the file" || bad "environment did not override"
start_daemon PWTUNED_LOG_FORMAT=text -- -c "$TMP/json.conf" --log-format json; stop_daemon
[ "$(fmt)" = "{" ] && ok "a flag overrides the environment" || bad "flag did not override"

# JSON logs: one object per line.
start_daemon -- --log-format json
stop_daemon
python3 -c "
import json, sys
lines = [json.loads(l) for l in open('$TMP/log') if l.strip()]
assert lines and all({'time', 'level', 'msg'} <= set(l) for l in lines)
assert any('listening on' in l['msg'] for l in lines)" && ok "--log-format json: one object per line" || bad "json logs"

rm -f "$VAR/pwtune.db"*
# Readiness on an empty store: READY=1 within 2 s.
python3 - "$TMP/notify" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(10)
while True:
    msg = s.recv(4096).decode()
    open(sys.argv[1] + ".log", "a").write(msg + "\n")
    if "STOPPING=1" in msg:
        break
PY
listener=$!
for _ in $(seq 50); do [ -S "$TMP/notify" ] && break; sleep 0.05; done
t0=$(date +%s%N)
start_daemon NOTIFY_SOCKET="$TMP/notify" WATCHDOG_USEC=400000
for _ in $(seq 40); do grep -q READY=1 "$TMP/notify.log" 2>/dev/null && break; sleep 0.05; done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
grep -q READY=1 "$TMP/notify.log" && [ $ms -lt 2000 ] && ok "READY=1 in ${ms} ms on an empty store" || bad "no READY=1 ($ms ms)"
sleep 0.5
grep -q WATCHDOG=1 "$TMP/notify.log" && ok "WATCHDOG=1 sent" || bad "no watchdog ping"
expect_http 503 "empty store: readyz 503" GET /readyz
expect_body "503 says Retry-After" 'int(h["retry-after"]) > 0'
expect_http 503 "empty store: recommendation 503" GET "/v1/recommendation?target_ms=250"
expect_http 503 "empty store: model 503" GET /v1/model
t0=$(date +%s%N)
stop_daemon
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $ms -lt 2000 ] && ok "SIGTERM when idle: stopped in ${ms} ms" || bad "SIGTERM idle took $ms ms"
wait $listener 2>/dev/null
grep -q STOPPING=1 "$TMP/notify.log" && ok "STOPPING=1 sent" || bad "no STOPPING=1"

# SIGTERM during a benchmark: exit 0 within 10 s, the run interrupted.
start_daemon PWTUNED_STARTUP_PROFILE=quick
for _ in $(seq 50); do grep -q "run 1 started" "$TMP/log" && break; sleep 0.1; done
sleep 1
t0=$(date +%s%N)
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=""
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $rc -eq 0 ] && [ $ms -lt 10000 ] && ok "SIGTERM during a benchmark: exit 0 in ${ms} ms" || bad "SIGTERM in a run: exit $rc, $ms ms"
[ "$(sqlite3 "$VAR/pwtune.db" 'SELECT status FROM runs WHERE id = 1')" = interrupted ] && ok "the run is marked interrupted" || bad "run 1 not interrupted"
[ "$(sqlite3 "$VAR/pwtune.db" 'PRAGMA integrity_check')" = ok ] && ok "store intact" || bad "store damaged"

# A restart serves the stored model at once.
seed_store
t0=$(date +%s%N)
start_daemon
expect_http 200 "restart: ready at once" GET /readyz
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $ms -lt 2000 ] && ok "ready in ${ms} ms" || bad "ready after $ms ms"

# A grid of another variant stored since (bench --db beside the daemon)
# adds its curve at the next start: the model stays the run's, and the
# default question is answered from it.
stop_daemon
seed_run=$(sqlite3 "$VAR/pwtune.db" "SELECT max(id) FROM runs")
"$PWTUNE" bench --m 8MiB,16MiB --t 1,3 --backend libsodium --variant argon2i \
	--repeats 2 --db "$VAR/pwtune.db" --no-json -q >/dev/null 2>&1 || bad "the argon2i grid was not stored"
grid_run=$(sqlite3 "$VAR/pwtune.db" "SELECT max(id) FROM runs")
start_daemon
expect_http 200 "a grid stored since: the default question answers" GET "/v1/recommendation?target_ms=250"
expect_body "... from the run before the grid, in argon2id" "j['model']['run_id'] == $seed_run and j['phc_prefix'].startswith('\$argon2id\$')"
expect_http 200 "... and argon2i from the grid" GET "/v1/recommendation?target_ms=250&variant=argon2i"
expect_body "... in argon2i" "j['phc_prefix'].startswith('\$argon2i\$')"
expect_http 200 "the model of both" GET /v1/model
expect_body "... each curve naming its run" "j['run_id'] == $seed_run and sorted((c['variant'], c['run_id']) for c in j['model']['curves']) == [('argon2i', $grid_run), ('argon2id', $seed_run)]"
grep -qF "with libsodium argon2i p = 1 from run $grid_run" "$TMP/log" && ok "the log names the grid's curve" || bad "the log does not name the grid's curve"
expect_http 200 "the hosts" GET /v1/hosts
expect_body "... this host's presets from its model: argon2id's and the grid's argon2i" "
    [n for n in (p['name'] for h in j['hosts'] if h['this_host'] for p in h['presets']) if n in ('OWASP-2', 'Argon2i')] == ['Argon2i', 'OWASP-2']"
# Stored while it runs: taken on SIGHUP (systemctl reload), the questions
# of the model's run kept.
expect_http 422 "argon2d before its grid: not measured" GET "/v1/recommendation?target_ms=250&variant=argon2d&backend=libargon2"
expect_body "... saying what would measure it" "j['param'] == 'backend' and 'pwtune bench --backend libargon2 --variant argon2d --p 1 --m 16MiB,64MiB,256MiB --t 1,3 measures them: with --db STORE' in j['detail']"
"$PWTUNE" bench --m 8MiB,16MiB --t 1,3 --backend libargon2 --variant argon2d \
	--repeats 2 --db "$VAR/pwtune.db" --no-json -q >/dev/null 2>&1 || bad "the argon2d grid was not stored"
d_run=$(sqlite3 "$VAR/pwtune.db" "SELECT max(id) FROM runs")
kill -HUP "$PID"
wait_log "model from run $seed_run in use: .*libargon2 argon2d p = 1 from run $d_run" 10 &&
	ok "SIGHUP: the grid stored since is taken, and the log says so" || bad "SIGHUP: the grid stored since was not taken"
expect_http 200 "... argon2d answers" GET "/v1/recommendation?target_ms=250&variant=argon2d&backend=libargon2"
expect_body "... from its grid, the model's run unchanged" "j['phc_prefix'].startswith('\$argon2d\$') and j['model']['run_id'] == $seed_run"
# A p = 2 grid: the presets at p = 2 are predicted on it, not bounded
# by p = 1's.
"$PWTUNE" bench --m 8MiB,16MiB --t 1,3 --backend libargon2 --p 2 \
	--repeats 2 --db "$VAR/pwtune.db" --no-json -q >/dev/null 2>&1 || bad "the p = 2 grid was not stored"
kill -HUP "$PID"
wait_log "libargon2 argon2id p = 2 from run" 10 || bad "SIGHUP: the p = 2 grid was not taken"
expect_http 200 "the hosts, after a p = 2 grid" GET /v1/hosts
expect_body "... Argon2idSecure (p = 2) predicted at p = 2, not as p = 1's bound" "
    [p.get('note') for h in j['hosts'] if h['this_host'] for p in h['presets'] if p['name'] == 'Argon2idSecure']
    in ([None], ['extrapolated'])"

# SIGHUP: reloads (log level), requests keep being answered.
python3 - "$PORT" "$PID" <<'PY' && ok "F13: SIGHUP 100 times under load: no failed request" || bad "SIGHUP under load"
import http.client, os, signal, sys, threading, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
failed, done = [], []
def load():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(200):
        try:
            c.request("GET", "/v1/recommendation?target_ms=250")
            r = c.getresponse(); r.read()
            if r.status != 200:
                failed.append(r.status)
        except Exception as e:
            failed.append(str(e)); c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    done.append(1)
ts = [threading.Thread(target=load) for _ in range(4)]
[t.start() for t in ts]
for _ in range(100):
    os.kill(pid, signal.SIGHUP); time.sleep(0.01)
[t.join() for t in ts]
assert not failed, failed[:5]
PY
grep -q "configuration reloaded" "$TMP/log" && ok "reload logged" || bad "no reload"
stop_daemon

# SIGHUP lowering memory_max: an answer kept under the old cap is not
# served again (the kept answers are keyed by the cap they were made under).
printf 'memory_max = 4GiB\n' >"$TMP/hup.conf"
start_daemon -- -c "$TMP/hup.conf"
expect_http 200 "1000 ms under memory_max = 4GiB" GET "/v1/recommendation?target_ms=1000"
m_before=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["m_kib"])' "$TMP/body")
expect_http 200 "asked again: kept" GET "/v1/recommendation?target_ms=1000"
printf 'memory_max = 16MiB\n' >"$TMP/hup.conf"
n=$(grep -c "configuration reloaded" "$TMP/log")
kill -HUP "$PID"
for _ in $(seq 50); do [ "$(grep -c "configuration reloaded" "$TMP/log")" -gt "$n" ] && break; sleep 0.05; done
expect_http 200 "the same question after memory_max = 16MiB" GET "/v1/recommendation?target_ms=1000"
expect_body "its answer within the new cap (it was m = $m_before KiB)" "j['m_kib'] <= 16384 and $m_before > 16384"
# POST /v1/check weighs a string against that same answer (250 ms, the
# cap of now): the answer's own parameters need no rehash and are
# predicted as the answer predicts them.
expect_http 200 "the default answer under 16 MiB" GET "/v1/recommendation?target_ms=250"
read -r prefix pred < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["phc_prefix"], j["predicted"]["ms"])' "$TMP/body")
expect_http 200 "POST /v1/check of the answer's own string" POST /v1/check \
	-H "Content-Type: application/json" --data-binary "{\"encoded\": \"$prefix\$c29tZXNhbHRzb21lc2FsdA\$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA\"}"
expect_body "no rehash, against $prefix, predicted $pred ms" \
	"j['needs_rehash']['differs'] is False and j['needs_rehash']['against'] == '$prefix' and abs(j['predicted']['ms'] - $pred) < 1e-3"
# A MiB less and a MiB more: other strings, each predicted by the curve
# (the less, less); a MiB less is not weaker (within 10 % of the answer:
# the answer before a check moved it), a fifth less is.
m0=$(python3 -c "import re; print(re.search(r'm=(\d+)', '$prefix').group(1))")
other() {	# other M: POST /v1/check of the answer's string with m = M
	expect_http 200 "POST /v1/check of m = $1" POST /v1/check -H "Content-Type: application/json" \
		--data-binary "{\"encoded\": \"$(echo "$prefix" | sed "s/m=[0-9]*/m=$1/")\$c29tZXNhbHRzb21lc2FsdA\$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA\"}"
}
other $((m0 + 1024))
more=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["predicted"]["ms"])' "$TMP/body")
other $((m0 - 1024))
expect_body "a MiB less: differs, not weaker, predicted under a MiB more ($more ms)" \
	"j['needs_rehash']['differs'] is True and j['needs_rehash']['weaker'] is False and 0 < j['predicted']['ms'] < $more"
other $(( (m0 * 4 / 5) / 1024 * 1024 ))
expect_body "a fifth less: weaker" \
	"j['needs_rehash']['differs'] is True and j['needs_rehash']['weaker'] is True"
# A reload naming a FIFO as token_file: refused at once (never waited on),
# the token in use kept, and SIGTERM still stops the daemon.
mkfifo "$TMP/fifo"
printf 'memory_max = 16MiB\ntoken_file = %s\n' "$TMP/fifo" >"$TMP/hup.conf"
kill -HUP "$PID"
for _ in $(seq 50); do grep -q "reload: token file $TMP/fifo is not a regular file" "$TMP/log" && break; sleep 0.05; done
grep -q "reload: token file $TMP/fifo is not a regular file" "$TMP/log" && ok "a FIFO as token_file: the reload says so" || bad "a FIFO as token_file: not refused"
expect_http 201 "the token in use still posts" POST /v1/observations -H "Authorization: Bearer $(TOKEN)" \
	-H "Content-Type: application/json" --data-binary '{"stack": "svc", "m_kib": 19456, "t": 2, "samples_ms": [10]}'
t0=$(date +%s%N)
kill -TERM "$PID"
for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.05; done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
kill -0 "$PID" 2>/dev/null && { bad "SIGTERM after the FIFO reload: still running after $ms ms"; kill -KILL "$PID"; } || ok "SIGTERM after the FIFO reload: stopped in $ms ms"
wait "$PID" 2>/dev/null
PID=""

# A store holding only a grid of another variant: the default question's
# curve is not there, so a start-up run measures it.
rm -f "$VAR/pwtune.db"*
"$PWTUNE" bench --m 8MiB,16MiB --t 3,5 --backend libsodium --variant argon2i \
	--repeats 2 --db "$VAR/pwtune.db" --no-json -q >/dev/null 2>&1 || bad "the argon2i grid was not stored"
start_daemon PWTUNED_STARTUP_PROFILE=quick --
wait_log "start-up run [0-9]+ queued \(quick profile\)" 5 &&
	ok "a store of an argon2i grid only: a start-up run is queued" || bad "a store of an argon2i grid only: no start-up run"
[ "$(cat "$VAR/pwtuned.lock")" = "$PID" ] && ok "the lock holds the PID while it runs" || bad "the lock does not hold the PID"
stop_daemon
[ ! -s "$VAR/pwtuned.lock" ] && ok "... and no PID once stopped" || bad "the lock still names a PID once stopped: $(cat "$VAR/pwtuned.lock")"

# A read-only state directory: refuses to start within 2 s, clearly.
if [ "$(id -u)" = 0 ]; then
	chown -R nobody "$VAR" "$TMP"
	t0=$(date +%s%N)
	chmod 500 "$VAR"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PWTUNED" --state-dir "$VAR" --listen 127.0.0.1:0 >"$TMP/ro.out" 2>&1
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	chmod 700 "$VAR"
	[ $rc -ne 0 ] && [ $ms -lt 2000 ] && grep -q "cannot write in $VAR" "$TMP/ro.out" && ok "read-only state: refused in ${ms} ms" || { bad "read-only state: exit $rc, $ms ms"; cat "$TMP/ro.out"; }
else
	echo "skipped: read-only state (needs root to run as another user)"
fi
finish
