#!/usr/bin/env bash
# Mutations need the bearer token (RELIABILITY S1, S2): no, wrong,
# truncated, longer, lower-case and doubled tokens get 401 with
# WWW-Authenticate; wrong tokens per address are limited (429), missing
# ones are not; the right token always passes. A token file others can
# read is refused at start.
. "$(dirname "$0")/lib.sh"
seed_store
start_daemon PWTUNED_AUTH_FAILURES_PER_MINUTE=9
T=$(TOKEN)
[ "${#T}" -eq 64 ] && ok "a 64-hex-digit token was written" || bad "token: ${#T} characters"
[ "$(stat -c %a "$VAR/token")" = 600 ] && ok "token file is 0600" || bad "token file mode"
! grep -q "$T" "$TMP/log" && ok "the token is not in the log" || bad "token logged"
J=(-H "Content-Type: application/json")
unauth() {
	expect_http 401 "$1" POST /v1/runs "${J[@]}" --data-binary '{}' "${@:2}"
	expect_body "$1: WWW-Authenticate" 'h["www-authenticate"].startswith("Bearer") and j["param"] == "Authorization"'
}
unauth "no token"
unauth "wrong token" -H "Authorization: Bearer 0000000000000000000000000000000000000000000000000000000000000000"
unauth "truncated token" -H "Authorization: Bearer ${T:0:63}"
unauth "longer token" -H "Authorization: Bearer ${T}0"
unauth "another scheme" -H "Authorization: Basic $T"
unauth "doubled token" -H "Authorization: Bearer $T $T"
unauth "empty token" -H "Authorization: Bearer "
unauth "no scheme" -H "Authorization: $T"
expect_http 401 "DELETE without token" DELETE /v1/runs/1
# The scheme is case-insensitive (RFC 9110 11.1): "bearer" is the right
# token too (it was 401, and counted as a wrong one).
expect_http 404 "the scheme as bearer: the token taken" DELETE /v1/runs/999 -H "Authorization: bearer $T"
expect_http 404 "the scheme as BEARER: the token taken" DELETE /v1/runs/999 -H "Authorization: BEARER $T"
# One space or more between the scheme and the token (RFC 9110 11.4:
# 1*SP); it was 401 with two.
expect_http 404 "two spaces after Bearer: the token taken" DELETE /v1/runs/999 -H "Authorization: Bearer  $T"
expect_http 404 "three spaces after Bearer: the token taken" DELETE /v1/runs/999 -H "Authorization: Bearer   $T"
unauth "a tab for the space" -H "$(printf 'Authorization: Bearer\t%s' "$T")"
stop_daemon

# The failure limiter (issue 15, item 2). Requests without Authorization
# are plain 401s and count nothing: anyone on the same address (a local
# user, a web page's no-cors fetch, every client behind a container's
# bridge) must not lock the token holder out.
start_daemon PWTUNED_AUTH_FAILURES_PER_MINUTE=9 PWTUNED_STARTUP_PROFILE=quick
n401=0
for _ in $(seq 12); do
	req POST /v1/runs "${J[@]}" --data-binary '{}'
	[ "$(cat "$TMP/status")" = 401 ] && n401=$((n401 + 1))
done
[ $n401 -eq 12 ] && ok "12 requests without a token: 12 x 401, never 429" || bad "no token: $n401/12 were 401"
# Accepted: 202, or 409 while the start-up run is still going; never 429.
accepted() {	# accepted NAME [curl options]: POST /v1/runs, the right token
	req POST /v1/runs "${J[@]}" --data-binary '{}' -H "Authorization: Bearer $T" "${@:2}"
	case $(cat "$TMP/status") in
	202|409) ok "$1: HTTP $(cat "$TMP/status")" ;;
	*) bad "$1: HTTP $(cat "$TMP/status"), wanted 202 or 409" ;;
	esac
}
accepted "right token after 12 requests without one"
# Wrong tokens do count: the tenth in the minute is refused outright.
codes=""
for _ in $(seq 12); do
	req POST /v1/runs "${J[@]}" --data-binary '{}' -H "Authorization: Bearer 0000000000000000000000000000000000000000000000000000000000000000"
	codes="$codes $(cat "$TMP/status")"
done
[ "$codes" = " 401 401 401 401 401 401 401 401 401 429 429 429" ] &&
	ok "12 wrong tokens: 9 x 401, then 429" || bad "wrong tokens:$codes"
expect_body "429 says when" '"retry-after" in h and j["param"] == "Authorization"'
# ... and the right token from the same address still passes.
accepted "right token after 12 wrong ones"
expect_http 401 "no token after 12 wrong ones: still a plain 401" POST /v1/runs "${J[@]}" --data-binary '{}'
# The key is the whole address: 127.0.0.32 and 127.0.1.1 (one 32-bit hash
# to the old limiter) count apart, and 127.0.0.1's 429 is its own.
codes=""
for a in 127.0.0.32 127.0.1.1 127.0.0.32 127.0.1.1 127.0.0.32 127.0.1.1 \
	127.0.0.32 127.0.1.1 127.0.0.32 127.0.1.1 127.0.0.2; do
	req POST /v1/runs "${J[@]}" --data-binary '{}' --interface "$a" -H "Authorization: Bearer wrong-token-wrong-token"
	codes="$codes $(cat "$TMP/status")"
done
[ "$codes" = " 401 401 401 401 401 401 401 401 401 401 401" ] &&
	ok "5 + 5 wrong tokens from two addresses, 1 from a third: all 401" || bad "two addresses:$codes"
# A full table evicts nobody: with 256 addresses in their window (4 above,
# 252 here), a wrong token from one more is refused (429), not counted from
# zero; the right token from it still passes.
python3 - "$PORT" <<'PY' && ok "256 addresses followed, the 257th refused" || bad "a full table"
import socket, sys
def status(src):
    s = socket.socket()
    s.settimeout(5)
    s.bind((src, 0))
    s.connect(("127.0.0.1", int(sys.argv[1])))
    s.sendall(b"POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
              b"Authorization: Bearer wrong\r\nContent-Length: 0\r\n\r\n")
    line = s.recv(100).split(b"\r\n")[0].decode()
    s.close()
    return line.split()[1]
n = 0
for i in range(300):
    code = status("127.1.%d.%d" % (i // 200, i % 200 + 1))
    if code != "401":
        break
    n += 1
print("  %d wrong tokens from new addresses got 401, then %s" % (n, code))
sys.exit(0 if n == 252 and code == "429" else 1)
PY
accepted "right token from the 257th address" --interface 127.1.1.53
stop_daemon

# On a dual-stack listener ([::]), IPv4 clients come as IPv4-mapped IPv6
# addresses: each is still its own address (not one /64 for all of IPv4).
: >"$TMP/log"
env PWTUNED_STARTUP_PROFILE=none PWTUNED_CHECK_BUDGET=0 PWTUNED_AUTH_FAILURES_PER_MINUTE=3 \
	"$PWTUNED" --state-dir "$VAR" --listen '[::]:0' >>"$TMP/log" 2>&1 &
PID=$!
PORT=""
for _ in $(seq 100); do
	PORT=$(sed -n 's/.*listening on \[::\]:\([0-9]*\).*/\1/p' "$TMP/log")
	[ -n "$PORT" ] && break
	sleep 0.05
done
codes=""
for a in 127.0.0.5 127.0.0.5 127.0.0.5 127.0.0.5 127.0.0.6; do
	req POST /v1/runs "${J[@]}" --data-binary '{}' --interface "$a" -H "Authorization: Bearer wrong-token-wrong-token"
	codes="$codes $(cat "$TMP/status")"
done
[ "$codes" = " 401 401 401 429 401" ] && ok "dual-stack: IPv4 clients counted apart ($codes)" ||
	bad "dual-stack: wanted 401 401 401 429 401, got$codes (port ${PORT:-none})"
stop_daemon
start_daemon PWTUNED_STARTUP_PROFILE=none

# S3: the token is in no log line, argument or environment variable.
if ! tr '\0' '\n' <"/proc/$PID/cmdline" | grep -q "$T" &&
    ! tr '\0' '\n' <"/proc/$PID/environ" | grep -q "$T" && ! grep -q "$T" "$TMP/log"; then
	ok "S3: the token is not in argv, environ or the log"
else
	bad "S3: the token leaked"
fi
stop_daemon

# A token file others can read: refused at start, naming it.
chmod 644 "$VAR/token"
"$PWTUNED" --state-dir "$VAR" --listen 127.0.0.1:0 >"$TMP/out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "can be read by others" "$TMP/out" && ok "world-readable token file: refused" || { bad "world-readable token: exit $rc"; cat "$TMP/out"; }

# A file that holds no token (named by mistake): said so, not "chmod it",
# and left as it is; a link is named as one.
tok() {	# tok NAME WANT: token_file given as $TMP/tf
	local sum
	sum=$(sha256sum <"$TMP/tf")
	"$PWTUNED" -n --state-dir "$VAR" --token-file "$TMP/tf" >"$TMP/out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -qF -- "$2" "$TMP/out" && [ "$(sha256sum <"$TMP/tf")" = "$sum" ]; then
		ok "token file $1: refused, untouched"
	else
		bad "token file $1: exit $rc: $(cat "$TMP/out")"
	fi
}
printf 'Meeting notes for Monday\nbring coffee\n' >"$TMP/tf"
chmod 644 "$TMP/tf"
tok "of text" "does not hold a token"
printf '\001\002\377binary\000bytes%.0s' $(seq 40) >"$TMP/tf"
chmod 600 "$TMP/tf"
tok "of binary bytes" "does not hold a token"
head -c 100000 /dev/zero | tr '\0' a >"$TMP/tf"
tok "of one 100 kB line" "does not hold a token"
rm -f "$TMP/tf"
printf '0123456789abcdef0123\n' >"$TMP/real"
chmod 600 "$TMP/real"
ln -s "$TMP/real" "$TMP/tf"
tok "a symbolic link" "is a symbolic link: refused (name the file itself)"
# A token of one's own with spaces in it, as before: taken.
rm -f "$TMP/tf"
printf 'correct horse battery staple\n' >"$TMP/tf"
chmod 600 "$TMP/tf"
"$PWTUNED" -n --state-dir "$VAR" --token-file "$TMP/tf" >"$TMP/out" 2>&1 &&
	ok "a token with spaces in it: taken" || bad "a token with spaces: $(cat "$TMP/out")"
# Spaces around it: clients trim them, so it could never match.
printf '0123456789abcdef0123 \n' >"$TMP/tf"
tok "with a space after it" "does not hold a token"
finish
