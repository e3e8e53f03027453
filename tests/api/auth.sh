#!/usr/bin/env bash
# Mutations need the bearer token (RELIABILITY S1, S2): no, wrong,
# truncated, longer, lower-case and doubled tokens get 401 with
# WWW-Authenticate; failures per address are limited (429); the right
# token passes. A token file others can read is refused at start.
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
unauth "lower-case scheme" -H "Authorization: bearer $T"
unauth "doubled token" -H "Authorization: Bearer $T $T"
unauth "empty token" -H "Authorization: Bearer "
unauth "no scheme" -H "Authorization: $T"
expect_http 401 "DELETE without token" DELETE /v1/runs/1
# Nine failures in this minute: the tenth attempt is refused outright.
expect_http 429 "too many failures: 429" POST /v1/runs "${J[@]}" --data-binary '{}' -H "Authorization: Bearer $T"
expect_body "429 says when" '"retry-after" in h'
stop_daemon

# A fresh daemon (new limits): the right token passes.
start_daemon PWTUNED_AUTH_FAILURES_PER_MINUTE=9 PWTUNED_STARTUP_PROFILE=quick
expect_http 202 "right token: 202" POST /v1/runs "${J[@]}" --data-binary '{}' -H "Authorization: Bearer $T"
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
finish
