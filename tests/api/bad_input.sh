#!/usr/bin/env bash
# Bad input at the door (RELIABILITY B3-B11, S5, S7, S8): each refused with
# a problem+json that names the parameter, and the daemon stays up.
. "$(dirname "$0")/lib.sh"
seed_store
start_daemon
R=/v1/recommendation

param() {	# param STATUS NAME QUERY PARAM
	expect_http "$1" "$2" GET "$R?$3"
	expect_body "$2: names $4" "j['param'] == '$4' and h['content-type'] == 'application/problem+json'"
}
param 400 "no target" "percentile=95" target_ms
param 400 "target -1" "target_ms=-1" target_ms
param 400 "target 0" "target_ms=0" target_ms
param 400 "target 1.5" "target_ms=1.5" target_ms
param 400 "target 1e309" "target_ms=1e309" target_ms
param 400 "target 2^63" "target_ms=9223372036854775808" target_ms
param 400 "target abc" "target_ms=abc" target_ms
param 400 "target with NUL" "target_ms=25%00" target_ms
param 400 "target 4294967295" "target_ms=4294967295" target_ms
param 400 "unknown parameter" "target_ms=250&m=65536" m
param 400 "duplicate parameter" "target_ms=250&target_ms=300" target_ms
param 400 "percentile 90" "target_ms=250&percentile=90" percentile
param 400 "concurrency 0" "target_ms=250&concurrency=0" concurrency
param 400 "concurrency 16777215" "target_ms=250&concurrency=16777215" concurrency
param 400 "memory_max garbage" "target_ms=250&memory_max=lots" memory_max
param 400 "memory_max 4 PiB" "target_ms=250&memory_max=4294967295GiB" memory_max
param 400 "memory_max 2 TiB (over 1 TiB)" "target_ms=250&memory_max=2TiB" memory_max
param 400 "memory_max 1 TiB + 1 KiB" "target_ms=250&memory_max=1073741825" memory_max
expect_http 200 "memory_max 1TiB is taken" GET "$R?target_ms=250&memory_max=1TiB"
param 400 "parallelism 16777215" "target_ms=250&parallelism=16777215" parallelism
param 400 "floor unknown" "target_ms=250&floor=nist" floor
param 400 "variant unknown" "target_ms=250&variant=argon3" variant
param 400 "backend unknown" "target_ms=250&backend=openssl" backend
# Every wrong value is named at once: param and detail the first, errors
# all of them (a missing target_ms too); one wrong value, no errors.
param 400 "three wrong values" "percentile=90&concurrency=0&floor=nist" percentile
expect_body "three wrong values: errors names each, then the missing target_ms" \
	"[e['param'] for e in j['errors']] == ['percentile', 'concurrency', 'floor', 'target_ms'] and j['errors'][0]['detail'] == j['detail'] and 'must be owasp' in j['errors'][2]['detail'] and 'not nist' in j['errors'][2]['detail']"
param 400 "a wrong target and a wrong variant" "target_ms=abc&variant=argon3" target_ms
expect_body "wrong target: named once, not as missing too" \
	"[e['param'] for e in j['errors']] == ['target_ms', 'variant']"
param 400 "one wrong value" "target_ms=250&percentile=90" percentile
expect_body "one wrong value: no errors list" "'errors' not in j"
# What a stack does not take, beside a wrong value: named in the same 400.
param 400 "a wrong percentile and a backend not the stack's" \
	"target_ms=250&stack=php&backend=libsodium&percentile=1" percentile
expect_body "the backend against the stack is in errors" \
	"[e['param'] for e in j['errors']] == ['percentile', 'backend'] and 'must be libargon2 or left out with stack=php' in j['errors'][1]['detail']"
param 400 "parallelism 2 with a p = 1 stack" "target_ms=250&stack=php-sodium&parallelism=2" parallelism
expect_body "parallelism 2 with a p = 1 stack: says why" \
	"'php-sodium computes p = 1 only' in j['detail'] and 'errors' not in j"
param 400 "parallelism 2 with backend=libsodium" "target_ms=250&backend=libsodium&parallelism=2" parallelism
expect_body "parallelism 2 with backend=libsodium: says why" \
	"'libsodium computes p = 1 only' in j['detail']"
param 400 "a bad backend with a stack: named once" "target_ms=250&stack=php&backend=openssl" backend
expect_body "a bad backend with a stack: its own reason only" \
	"'must be libsodium, libargon2 or auto' in j['detail'] and 'errors' not in j"
# The stack's own backend asks nothing more: the same answer as without it
# (200, or the same 422 on a store seeded on a busy host), not a 400.
st_own=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$R?target_ms=250&stack=php&backend=libargon2")
st_none=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$R?target_ms=250&stack=php")
if [ "$st_own" = "$st_none" ] && [ "$st_own" != 400 ]; then
	ok "the stack's own backend is taken: $st_own, as without it"
else
	bad "the stack's own backend: $st_own, without it $st_none"
fi

# S5: huge m, t, p anywhere: refused or parsed, never allocated or hashed.
status_of() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$PID/status"; }
rss0=$(status_of VmRSS); thr0=$(status_of Threads)
for q in "target_ms=250&memory_max=4294967295" "target_ms=250&parallelism=16777215" \
	"target_ms=4294967295" "target_ms=250&concurrency=4294967295"; do
	req GET "$R?$q"
done
req POST /v1/check -H "Content-Type: application/json" --data-binary '{"encoded": "$argon2id$v=19$m=4294967295,t=4294967295,p=16777215$c29tZXNhbHRzb21lc2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA"}'
rss1=$(status_of VmRSS); thr1=$(status_of Threads)
[ "$thr0" = "$thr1" ] && [ $((rss1 - rss0)) -lt 1024 ] && ok "S5: threads ($thr1) and memory (+$((rss1 - rss0)) KiB) unchanged" || bad "S5: threads $thr0 -> $thr1, RSS $rss0 -> $rss1 KiB"

# /v1/check: JSON at the door, never hashed.
J=(-H "Content-Type: application/json")
body() { expect_http "$1" "$2" POST /v1/check "${J[@]}" --data-binary "$3"; }
body 200 "check a hash" '{"encoded": "$argon2id$v=19$m=65536,t=3,p=1$c29tZXNhbHRzb21lc2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA"}'
expect_body "check: predicted, floor, needs-rehash" 'j["predicted"]["ms"] > 0 and j["owasp_floor_met"] is True and "differs" in j["needs_rehash"]'
body 200 "check m = 4294967295: parsed, not run" '{"encoded": "$argon2id$v=19$m=4294967295,t=4294967295,p=16777215$c29tZXNhbHRzb21lc2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA"}'
body 400 "check a malformed hash" '{"encoded": "$argon2id$v=19$m=1,t=1,p=1$x$y"}'
expect_body "malformed: names encoded and why" 'j["param"] == "encoded" and "m must be at least" in j["detail"]'
body 400 "duplicate keys" '{"encoded": "a", "encoded": "b"}'
expect_body "duplicate keys: bad-json" 'j["type"] == "/problems/bad-json"'
body 400 "trailing bytes" '{"encoded": "a"} x'
body 400 "top-level scalar" '"$argon2id$"'
body 400 "a number for a string" '{"encoded": 5}'
body 400 "bad UTF-8" $'{"encoded": "\xff\xfe"}'
body 400 "NUL inside" $'{"encoded": "a\\u0000b"}'
deep=$(python3 -c 'print("[" * 33 + "]" * 33)')
body 400 "nested 33 deep" "{\"encoded\": $deep}"
expect_body "nested: refused before parsing" '"nested deeper" in j["detail"]'
python3 -c 'print("[" * 100000 + "]" * 100000)' >"$TMP/deep.json"
expect_http 413 "nested 100000 deep: over the cap" POST /v1/check "${J[@]}" --data-binary @"$TMP/deep.json"

# Bodies and headers.
big=$(head -c 5000 /dev/zero | tr '\0' 'a')
body 413 "body over 4 KiB" "{\"encoded\": \"$big\"}"
expect_http 413 "Content-Length of 10 GB" POST /v1/check "${J[@]}" -H "Content-Length: 10000000000" --data-binary '{}'
python3 - "$PORT" <<'PY' && ok "B7: 413 on the headers alone, within 100 ms" || bad "B7: 413 too slow"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
t0 = time.monotonic()
s.sendall(b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n")
reply = s.recv(200).decode(errors="replace")
ms = (time.monotonic() - t0) * 1000
print("  413 after %.1f ms" % ms)
sys.exit(0 if " 413 " in reply.split("\r\n")[0] and ms < 100 else 1)
PY
python3 - "$PORT" <<'PY' && ok "long chunked body: 413" || bad "long chunked body"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
try:
    for _ in range(10):
        s.sendall(b"400\r\n" + b"a" * 1024 + b"\r\n")
    s.sendall(b"0\r\n\r\n")
except OSError:
    pass
reply = s.recv(200).decode(errors="replace")
sys.exit(0 if " 413 " in reply.split("\r\n")[0] else 1)
PY
# A chunked body that keeps going (1 KiB every 50 ms, up to 64 KiB): the
# 413 comes as soon as it passes 4 KiB, and the server closes the
# connection, long before the body would end.
python3 - "$PORT" <<'PY' && ok "chunked body past 4 KiB: 413 at once, closed" || bad "chunked body past 4 KiB: read on"
import select, socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
sent, reply, closed = 0, b"", False
try:
    while sent < 64 * 1024 and not closed:
        s.sendall(b"400\r\n" + b"a" * 1024 + b"\r\n")
        sent += 1024
        time.sleep(0.05)
        while select.select([s], [], [], 0)[0]:
            data = s.recv(4096)
            if not data:
                closed = True
                break
            reply += data
except OSError:
    closed = True
if not closed:
    s.settimeout(2)
    try:
        while True:
            data = s.recv(4096)
            if not data:
                break
            reply += data
    except OSError:
        pass
line = reply.split(b"\r\n")[0].decode(errors="replace")
print("  %d KiB sent before the close; reply: %s" % (sent // 1024, line or "none"))
sys.exit(0 if " 413 " in line and closed and sent <= 8 * 1024 else 1)
PY
python3 - "$PORT" <<'PY' && ok "Content-Length and Transfer-Encoding: 400" || bad "CL and TE"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
reply = s.recv(200).decode(errors="replace")
sys.exit(0 if " 400 " in reply.split("\r\n")[0] else 1)
PY
expect_http 415 "POST without Content-Type" POST /v1/check --data-binary '{"encoded": "x"}' -H "Content-Type:"
expect_http 415 "POST as text/plain" POST /v1/check -H "Content-Type: text/plain" --data-binary '{"encoded": "x"}'
long=$(head -c 70000 /dev/zero | tr '\0' 'a')
expect_http 431 "huge header: 431" GET "/healthz" -H "X-Big: $long"
expect_http 414 "huge URI: 414" GET "/healthz?x=$long"
mid=$(head -c 2100 /dev/zero | tr '\0' 'a')
expect_http 414 "a query of 2100 bytes: 414" GET "$R?target_ms=250&x=$mid"
expect_body "414 as problem+json" "j['type'] == '/problems/uri-too-long' and h['content-type'] == 'application/problem+json' and '2048' in j['detail']"
expect_http 400 "a query of 1900 bytes: read (and refused for its parameter)" GET "$R?target_ms=250&x=${mid:0:1900}"
# A header that says where the request goes or how long it is, twice:
# refused, whichever order (a proxy in front may read the other one).
dup() {	# dup NAME REQUEST
	python3 - "$PORT" "$2" <<'PY' && ok "$1: 400 bad-request" || bad "$1: not refused"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode())
reply = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    reply += d
    if b"\r\n\r\n" in reply and b"}" in reply:
        break
reply = reply.decode(errors="replace")
sys.exit(0 if " 400 " in reply.split("\r\n")[0] and "bad-request" in reply and ("more than once" in reply or "white space" in reply) else 1)
PY
}
dup "Host twice (ours first)" 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n'
dup "Host twice (ours second)" 'GET /healthz HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1\r\n\r\n'
dup "Content-Length twice" 'POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 5000\r\n\r\n{}'
dup "host twice, in another case" 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nhOST: evil.example\r\n\r\n'
dup "Host : (a space before the colon)" 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost : evil.example\r\n\r\n'
dup "Content-Length : beside Content-Length" 'POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length : 5000\r\nContent-Length: 2\r\n\r\n{}'
dup "Transfer-Encoding : beside Content-Length" 'POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding : chunked\r\n\r\n{}'
printf 'GARBAGE\r\n\r\n' | timeout 5 python3 -c "
import socket, sys
s = socket.create_connection(('127.0.0.1', $PORT), timeout=5)
s.sendall(sys.stdin.buffer.read())
s.recv(100)" >/dev/null 2>&1
expect_http 200 "alive after garbage" GET /healthz
# A NUL in the path (%00) is refused with the headers: libmicrohttpd's
# decoding ended the path there (/v1/runs/1%00abc served run 1).
expect_http 400 "a NUL in the path: 400" GET "/v1/runs/1%00abc" --path-as-is
expect_body "... bad-request, saying why" "j['type'] == '/problems/bad-request' and 'NUL' in j['detail'] and h['content-type'] == 'application/problem+json'"
expect_http 400 "a NUL at the path's end: 400" GET "/healthz%00"
expect_http 404 "%2500 (a percent sign, then 00) is no NUL" GET "/healthz%2500"
expect_http 400 "a NUL in the query is still the query's (names it)" GET "$R?target_ms=25%00"
expect_body "... naming target_ms" "j['param'] == 'target_ms'"
# The byte itself, not %00: the request line keeps it, and the target
# the handlers see ended there (the path and the query alike).
raw() {	# raw BYTES (a Python bytes literal): the status line of the reply
	python3 - "$PORT" "$1" <<'PY'
import ast, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(ast.literal_eval(sys.argv[2]))
reply = b""
while b"\r\n" not in reply:
    d = s.recv(4096)
    if not d:
        break
    reply += d
print(reply.split(b"\r\n")[0].decode(errors="replace"))
PY
}
for t in '/v1/runs/1\x00abc' '/v1/runs\x00/1' '/v1/recommendation?target_ms=250&stack=php\x00evil' '/healthz\x00'; do
	st=$(raw "b'GET $t HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'")
	case $st in *" 400 "*) ok "a NUL byte in $t: 400" ;; *) bad "a NUL byte in $t: $st" ;; esac
done
st=$(raw "b'GET /v1/runs/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'")
case $st in *" 200 "*) ok "the same request line without the NUL: 200" ;; *) bad "without the NUL: $st" ;; esac
# ... and in the method ("GET\0junk" was served as GET).
st=$(raw "b'GET\x00junk /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'")
case $st in *" 400 "*) ok "a NUL byte in the method: 400" ;; *) bad "a NUL byte in the method: $st" ;; esac
st=$(raw "b'GET   /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'")
case $st in *" 200 "*) ok "spaces between the method and the target: 200" ;; *) bad "spaces after the method: $st" ;; esac
expect_http 200 "alive after NULs" GET /healthz
# libmicrohttpd's own messages are the log's lines (they went to stderr
# raw, outside a JSON log's lines).
python3 - "$PORT" <<'PY' >/dev/null 2>&1
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: +52\r\n\r\n{}")
s.recv(4096)
PY
expect_http 200 "alive after Content-Length: +52" GET /healthz
grep -q ' warn: http: ' "$TMP/log" && ok "libmicrohttpd's message is a line of the log" ||
	bad "no 'http:' line in the log"
! grep -q "not the first option" "$TMP/log" && ok "every message of libmicrohttpd's is routed (its logger is the first option)" ||
	bad "libmicrohttpd says some of its messages go to its own logger"
grep -vE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z [a-z]+: ' "$TMP/log" >"$TMP/odd"
[ ! -s "$TMP/odd" ] && ok "every line of the log is a log line" ||
	{ bad "lines outside the log's format"; head -3 "$TMP/odd"; }

# Host and Origin.
expect_http 421 "foreign Host" GET /healthz -H "Host: evil.example"
expect_body "421 names Host" 'j["param"] == "Host"'
expect_http 200 "localhost:port Host" GET /healthz -H "Host: localhost:$PORT"
expect_http 200 "Origin from elsewhere" GET "$R?target_ms=250" -H "Origin: https://evil.example"
expect_body "no CORS headers, ever" 'not any(k.startswith("access-control-") for k in h)'
stop_daemon

# libmicrohttpd's messages can carry the client's bytes (the path of a
# request whose answer could not be sent): in the log as \xNN, never as
# the bytes (an escape sequence, a newline, a byte that is not UTF-8,
# which dropped the whole line of a JSON log); a flood of them is cut to
# a few lines and counted.
start_daemon -- --log-format json
L0=$(wc -l <"$TMP/log")
inject() {	# inject [PATH]: a chunked body over 4 KiB to PATH, refused as it comes
	python3 - "$PORT" "${1:-/x%1b[2J%07%7f%0aINJECT%ff%5cx0a}" <<'PY' >/dev/null 2>&1
import socket, sys
b = b"{" + b" " * 5000 + b"}"
body = b"%x\r\n" % len(b) + b + b"\r\n0\r\n\r\n"
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"POST " + sys.argv[2].encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
try:
    while s.recv(65536):
        pass
except OSError:
    pass
PY
}
inject
for _ in $(seq 20); do grep -q '"http: ' "$TMP/log" && break; sleep 0.1; done
python3 - "$TMP/log" "$L0" <<'PY' && ok "JSON log: every line is JSON; the client's bytes as \\xNN" || bad "JSON log: $(tail -c 400 "$TMP/log")"
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")[int(sys.argv[2]):]
http = []
for l in lines:
    if l:
        j = json.loads(l)
        if j["msg"].startswith("http: "):
            http.append(j["msg"])
assert http, "no http: line"
assert any("\\x1b" in m and "\\x0a" in m and "\\xff" in m and "\\x07" in m and "\\x5cx0a" in m for m in http), http
assert all(all(32 <= ord(c) < 127 for c in m) for m in http), http
PY
# A long path: its message is cut at 160 bytes (each escaped byte 4).
inject "/$(head -c 1500 /dev/zero | tr '\0' L)"
for _ in $(seq 20); do grep -q 'LLLLLLLL' "$TMP/log" && break; sleep 0.1; done
python3 - "$TMP/log" <<'PY' && ok "a long path: its line cut at 160 bytes" || bad "a long path: $(grep -c LLLL "$TMP/log") lines, $(grep LLLL "$TMP/log" | head -1 | wc -c) bytes"
import json, sys
msgs = [json.loads(l)["msg"] for l in open(sys.argv[1], "rb").read().split(b"\n") if b"LLLL" in l]
assert msgs, "no line"
assert all(len(m) <= len("http: ") + 160 for m in msgs), [len(m) for m in msgs]
PY
L1=$(wc -l <"$TMP/log")
t0=$(date +%s.%N)
python3 - "$PORT" <<'PY'
import socket, sys
for _ in range(40):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    s.sendall(b"GET /healthz\r\n\r\n")
    try:
        s.recv(4096)
    except OSError:
        pass
    s.close()
PY
sleep 0.3
n=$(tail -n +"$((L1 + 1))" "$TMP/log" | grep -c '"http: ')
# The burst (10), and one a second after it.
most=$(python3 -c "import math, sys; print(10 + 1 + math.ceil(float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)")
[ "$n" -ge 1 ] && [ "$n" -le "$most" ] && ok "40 malformed requests: $n lines of libmicrohttpd's (at most $most)" ||
	bad "40 malformed requests: $n lines (at most $most)"
sleep 1.2
inject
for _ in $(seq 20); do grep -q 'more such messages not logged' "$TMP/log" && break; sleep 0.1; done
grep -q 'more such messages not logged' "$TMP/log" && ok "the messages not logged are counted" ||
	bad "no count of the messages not logged"
expect_http 200 "alive after the flood" GET /healthz
stop_daemon
finish
