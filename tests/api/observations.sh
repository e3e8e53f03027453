#!/usr/bin/env bash
# Client-reported timings: POST /v1/observations takes what a service's own
# runtime measured (token, validated, bounded, rate-limited); GET shows
# predicted against observed per stack; with five observations of a stack,
# stack= corrects the answer for it (here a stack exactly twice as slow as
# the model: its answer is the one for half the target).
. "$(dirname "$0")/lib.sh"
seed_store libsodium,libargon2
start_daemon
T=$(TOKEN)
A=(-H "Content-Type: application/json" -H "Authorization: Bearer $T")
S=php-8.2-libargon2
obs() { req POST /v1/observations "${A[@]}" --data-binary "$1"; }

expect_http 401 "no token: 401" POST /v1/observations \
	-H "Content-Type: application/json" --data-binary "{\"stack\": \"$S\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [40]}"
# Bad input, each named.
bad_obs() {
	expect_http 400 "$1" POST /v1/observations "${A[@]}" --data-binary "$3"
	expect_body "$1: names $2" "j['param'] == '$2'"
}
bad_obs "no stack" stack '{"m_kib": 19456, "t": 2, "samples_ms": [40]}'
bad_obs "a stack with a space" stack '{"stack": "php 8", "m_kib": 19456, "t": 2, "samples_ms": [40]}'
bad_obs "a stack of 64 bytes" stack "{\"stack\": \"$(printf 'a%.0s' $(seq 64))\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [40]}"
bad_obs "an unknown member" hash '{"stack": "x", "m_kib": 19456, "t": 2, "samples_ms": [40], "hash": "$argon2id$"}'
bad_obs "m_kib 4" m_kib '{"stack": "x", "m_kib": 4, "t": 2, "samples_ms": [40]}'
bad_obs "m_kib as a string" m_kib '{"stack": "x", "m_kib": "19456", "t": 2, "samples_ms": [40]}'
bad_obs "m_kib below 8 x p" m_kib '{"stack": "x", "m_kib": 16, "t": 2, "p": 4, "samples_ms": [40]}'
bad_obs "t 0" t '{"stack": "x", "m_kib": 19456, "t": 0, "samples_ms": [40]}'
bad_obs "no t" t '{"stack": "x", "m_kib": 19456, "samples_ms": [40]}'
bad_obs "k 2000" k '{"stack": "x", "m_kib": 19456, "t": 2, "k": 2000, "samples_ms": [40]}'
bad_obs "bcrypt" variant '{"stack": "x", "variant": "bcrypt", "m_kib": 19456, "t": 2, "samples_ms": [40]}'
bad_obs "no samples" samples_ms '{"stack": "x", "m_kib": 19456, "t": 2, "samples_ms": []}'
bad_obs "a negative sample" samples_ms '{"stack": "x", "m_kib": 19456, "t": 2, "samples_ms": [40, -1]}'
bad_obs "a sample of 11 minutes" samples_ms '{"stack": "x", "m_kib": 19456, "t": 2, "samples_ms": [660000]}'
bad_obs "a sample as a string" samples_ms '{"stack": "x", "m_kib": 19456, "t": 2, "samples_ms": ["40"]}'
bad_obs "257 samples" samples_ms "{\"stack\": \"x\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [$(seq -s, 1 257)]}"
expect_http 413 "a body over 4 KiB" POST /v1/observations "${A[@]}" \
	--data-binary "{\"stack\": \"x\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [$(seq -s, 1000 1900)]}"

# What the model predicts for 19 MiB, t = 2; the stack takes twice that
# (to the 6 digits the API prints: the factor comes out 2 within 1e-5).
expect_http 201 "an observation" POST /v1/observations "${A[@]}" \
	--data-binary "{\"stack\": \"$S\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [10, 10, 10]}"
expect_body "201: stored with the model's prediction" \
	"j['stack'] == '$S' and j['samples'] == 3 and j['median_ms'] == 10 and j['predicted']['ms'] > 0 and j['predicted']['percentile'] == 50 and j['predicted_ms'] == j['predicted']['ms'] and j['variant'] == 'argon2id' and j['k'] == 1"
P=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["predicted"]["ms"])' "$TMP/body")
TWICE=$(python3 -c "print(2 * $P)")
for i in 1 2 3; do
	obs "{\"stack\": \"$S\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [$TWICE, $TWICE]}"
done
expect_http 200 "stack= with four observations" GET "/v1/recommendation?target_ms=250&stack=$S"
expect_body "not corrected yet, and it says why" \
	"j['stack']['applied'] is False and j['stack']['observations'] == 4 and 'needs 5' in j['stack']['note']"
refits() { grep -c "stacks refitted from observations: .*$S (observations" "$TMP/log"; }
R0=$(refits)
obs "{\"stack\": \"$S\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [$TWICE]}"
# The fifth brings it into the host's model when the runner is next idle
# (within a second or two); the kept answers below are asked after that.
for _ in $(seq 50); do [ "$(refits)" -gt "$R0" ] && break; sleep 0.1; done
[ "$(refits)" -gt "$R0" ] && ok "the runner refitted $S into the model" ||
	bad "no refit of $S in the log"
expect_http 200 "the plain answer for 125 ms" GET "/v1/recommendation?target_ms=125"
HALF=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phc_prefix"])' "$TMP/body")
expect_http 200 "stack= with five observations" GET "/v1/recommendation?target_ms=250&stack=$S"
expect_body "corrected by 2: the answer for half the target, predicted for the stack" \
	"j['stack']['applied'] is True and abs(j['stack']['factor'] - 2) < 1e-3 and j['phc_prefix'] == '$HALF' and j['predicted']['ms'] <= 250 and j['latency']['target_ms'] == 250"
cp "$TMP/body" "$TMP/corrected.json"
# The same question again: the answer kept, not computed again; after an
# observation of the stack it is computed again.
scoped() {
	req GET /metrics
	sed -n "s/^pwtuned_scoped_answers_total{result=\"$1\"} //p" "$TMP/body"
}
C0=$(scoped computed); K0=$(scoped cached)
expect_http 200 "stack= asked again" GET "/v1/recommendation?target_ms=250&stack=$S"
if cmp -s "$TMP/body" "$TMP/corrected.json"; then ok "the same answer, byte for byte"; else bad "another answer to the same question"; fi
C1=$(scoped computed); K1=$(scoped cached)
if [ -n "$C0" ] && [ "$C1" = "$C0" ] && [ "$K1" = $((K0 + 1)) ]; then
	ok "answered from the one kept (computed $C0 -> $C1, cached $K0 -> $K1)"
else
	bad "not answered from the one kept: computed $C0 -> $C1, cached $K0 -> $K1"
fi
obs "{\"stack\": \"$S\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [$TWICE]}"
expect_http 200 "stack= after a sixth observation" GET "/v1/recommendation?target_ms=250&stack=$S"
expect_body "six observations counted" "j['stack']['observations'] == 6"
C2=$(scoped computed)
if [ "$C2" = $((C1 + 1)) ]; then ok "an observation makes it computed again"; else bad "computed $C1 -> $C2 after an observation"; fi
expect_http 400 "another stack, without observations: unknown" GET "/v1/recommendation?target_ms=250&stack=go-1.19"
expect_body "another stack: named, the known names listed" "j['param'] == 'stack' and 'unknown stack go-1.19' in j['detail'] and 'php' in j['detail']"
expect_http 400 "stack= with a bad name" GET "/v1/recommendation?target_ms=250&stack=a%20b"
expect_body "named" 'j["param"] == "stack"'

expect_http 200 "GET /v1/observations" GET /v1/observations
expect_body "predicted against observed, per stack" \
	"j['stacks'] == [{'stack': '$S', 'observations': 6, 'factor': j['stacks'][0]['factor'], 'factor_of': 'libsodium'}] and abs(j['stacks'][0]['factor'] - 2) < 1e-3 and len(j['observations']) == 6 and abs(j['observations'][0]['ratio'] - 2) < 1e-3 and j['min_observations'] == 5"
expect_body "each says it was a service's" "all(o['source'] == 'service' for o in j['observations'])"
expect_http 200 "GET ?stack= filters" GET "/v1/observations?stack=go-1.19"
expect_body "nothing for another stack" 'j["observations"] == [] and j["stacks"] == []'
# Its query as strict as the recommendation's: a NUL, a key twice, a key
# it does not know are 400 naming it.
expect_http 400 "GET ?stack=svc%00: NUL" GET "/v1/observations?stack=svc%00"
expect_body "names stack and the NUL" "j['param'] == 'stack' and 'NUL' in j['detail']"
expect_http 400 "GET ?stack= twice" GET "/v1/observations?stack=a&stack=b"
expect_body "names stack, given twice" "j['param'] == 'stack' and j['detail'] == 'given twice'"
expect_http 400 "GET ?limit=5: unknown" GET "/v1/observations?limit=5"
expect_body "names limit, lists stack" "j['param'] == 'limit' and 'known: stack' in j['detail']"

# Rate: 10 a second, 50 at once; a burst of 300 from one client (one curl,
# so no process start-up between them) finds the bucket empty.
urls=()
for _ in $(seq 300); do urls+=(-o /dev/null --url "http://127.0.0.1:$PORT/v1/observations"); done
curl -s -w '%{http_code} %header{retry-after}\n' --parallel --parallel-max 8 \
	-X POST "${A[@]}" --data-binary '{"stack": "burst", "m_kib": 19456, "t": 2, "samples_ms": [40]}' \
	"${urls[@]}" >"$TMP/codes"
n429=$(grep -c '^429 ' "$TMP/codes")
n201=$(grep -c '^201 ' "$TMP/codes")
if [ "$n429" -ge 1 ] && [ "$n201" -ge 1 ] && [ $((n429 + n201)) = 300 ]; then
	ok "a burst of 300: $n201 taken, $n429 refused with 429"
else
	bad "a burst of 300: $(cut -d' ' -f1 "$TMP/codes" | sort | uniq -c | tr '\n' ' ')"
fi
if [ "$n429" -ge 1 ] && ! grep '^429 ' "$TMP/codes" | grep -qvE '^429 [1-9][0-9]*$'; then
	ok "every 429 says when to retry (Retry-After)"
else
	bad "a 429 without Retry-After: $(grep '^429' "$TMP/codes" | sort | uniq -c | tr '\n' ' ')"
fi
sleep 1.2
expect_http 201 "a second later: taken again" POST /v1/observations "${A[@]}" \
	--data-binary '{"stack": "burst", "m_kib": 19456, "t": 2, "samples_ms": [40]}'

# A catalogue stack's observation is predicted as its answers predict it:
# PHP hashes through libargon2 (not the libsodium curve other names use).
expect_http 200 "stack=php's answer" GET "/v1/recommendation?target_ms=250&stack=php"
read -r pm pt pp p50 < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["m_kib"], j["t"], j["p"], j["predicted"]["p50_ms"])' "$TMP/body")
sleep 1.1
expect_http 201 "an observation of php at its answer" POST /v1/observations "${A[@]}" \
	--data-binary "{\"stack\": \"php\", \"m_kib\": $pm, \"t\": $pt, \"p\": $pp, \"samples_ms\": [$p50, $p50]}"
expect_body "predicted as php's answer: p50 $p50 ms, ratio 1" \
	"abs(j['predicted']['ms'] - $p50) < 1e-3 * $p50 and abs(j['ratio'] - 1) < 1e-3"

# Names services post under are bounded per host (64): past them a new
# name is 409 naming stack, and nothing is stored; a name posted before,
# or one of the catalogue, is still taken. The names up to 64 are put in
# the store beside the daemon (as posts would).
HOST=$(sqlite3 "$VAR/pwtune.db" "SELECT host_id FROM runs ORDER BY id DESC LIMIT 1")
CAT="'libsodium', 'libargon2', 'php', 'php-sodium', 'python-argon2-cffi', 'python-pynacl', 'go', 'node-argon2', 'java-bouncycastle'"
have=$(sqlite3 "$VAR/pwtune.db" "SELECT count(DISTINCT stack) FROM observations WHERE source = 'service' AND stack NOT IN ($CAT)")
[ "$(sqlite3 "$VAR/pwtune.db" "SELECT count(DISTINCT stack) FROM observations WHERE source = 'service' AND stack IN ($CAT)")" -ge 1 ] &&
	ok "a name of the catalogue posted before (it does not count)" || bad "no catalogue name posted before"
python3 - "$VAR/pwtune.db" "$HOST" "$((64 - have))" <<'PY' || bad "cannot put names in the store"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=10)
for i in range(int(sys.argv[3])):
    db.execute("INSERT INTO observations (host_id, stack, variant, m_kib, t, p, k, nsamples, median_ms, "
               "p95_ms, samples, created, source) VALUES (?, ?, 'argon2id', 19456, 2, 1, 1, 1, 40, 40, '[40]', "
               "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), 'service')", (sys.argv[2], "name-%d" % i))
db.commit()
PY
n0=$(sqlite3 "$VAR/pwtune.db" "SELECT count(*) FROM observations")
sleep 1.1
expect_http 409 "a 65th name: 409" POST /v1/observations "${A[@]}" \
	--data-binary '{"stack": "one-too-many", "m_kib": 19456, "t": 2, "samples_ms": [40]}'
expect_body "... too-many-stacks, naming stack, saying how many" \
	"j['type'] == '/problems/too-many-stacks' and j['param'] == 'stack' and '64 stack names besides the catalogue' in j['detail']"
[ "$(sqlite3 "$VAR/pwtune.db" "SELECT count(*) FROM observations")" = "$n0" ] &&
	ok "... and nothing stored" || bad "the 65th name stored something"
expect_http 201 "a name posted before: taken" POST /v1/observations "${A[@]}" \
	--data-binary '{"stack": "name-0", "m_kib": 19456, "t": 2, "samples_ms": [40]}'
expect_http 201 "a name of the catalogue: taken" POST /v1/observations "${A[@]}" \
	--data-binary '{"stack": "go", "m_kib": 19456, "t": 2, "samples_ms": [40]}'
expect_http 200 "GET /v1/observations after" GET /v1/observations

# DELETE /v1/observations?stack=NAME (token) forgets what services posted
# of NAME on this host, and nothing else: a probe's point of the same
# name stays. The name's room is free again, and a name only
# observations knew is no longer one answers take.
sqlite3 "$VAR/pwtune.db" "INSERT INTO observations (host_id, stack, variant, m_kib, t, p, k, nsamples, median_ms, p95_ms, samples, created, source) VALUES ('$HOST', 'name-0', 'argon2id', 19456, 2, 1, 1, 1, 40, 40, '[40]', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), 'probe')"
n0=$(sqlite3 "$VAR/pwtune.db" "SELECT count(*) FROM observations")
expect_http 401 "DELETE without the token: 401" DELETE "/v1/observations?stack=name-0"
expect_http 400 "DELETE without stack: 400" DELETE /v1/observations "${A[@]}"
expect_body "... naming stack" "j['param'] == 'stack' and 'is required' in j['detail']"
expect_http 400 "DELETE ?stack=a&limit=1: 400" DELETE "/v1/observations?stack=a&limit=1" "${A[@]}"
expect_body "... naming limit" "j['param'] == 'limit'"
expect_http 400 "DELETE ?stack=a%00b: 400" DELETE "/v1/observations?stack=a%00b" "${A[@]}"
[ "$(sqlite3 "$VAR/pwtune.db" "SELECT count(*) FROM observations")" = "$n0" ] &&
	ok "... nothing forgotten by those" || bad "a refused DELETE removed observations"
expect_http 200 "DELETE ?stack=name-0: 200" DELETE "/v1/observations?stack=name-0" "${A[@]}"
expect_body "... the services' two forgotten" "j['stack'] == 'name-0' and j['deleted'] == 2 and j['host_id'] == '$HOST'"
[ "$(sqlite3 "$VAR/pwtune.db" "SELECT group_concat(source) FROM observations WHERE stack = 'name-0'")" = "probe" ] &&
	ok "... the probe's point of that name kept" || bad "the probe's point went too, or a service's stayed"
[ "$(sqlite3 "$VAR/pwtune.db" "SELECT count(*) FROM observations")" = "$((n0 - 2))" ] &&
	ok "... nothing else forgotten" || bad "other observations went too"
expect_http 404 "the same DELETE again: 404" DELETE "/v1/observations?stack=name-0" "${A[@]}"
expect_body "... naming stack" "j['param'] == 'stack' and 'no observations of name-0' in j['detail']"
grep -q "observations of name-0 forgotten through the API: 2" "$TMP/log" &&
	ok "the log says what was forgotten" || bad "no log line for the DELETE"
# Its room: a new name is taken now, and with five observations it is a
# stack answers take, until it is forgotten.
for i in 1 2 3 4 5; do
	sleep 0.2
	req POST /v1/observations "${A[@]}" --data-binary \
		'{"stack": "svc-gone", "m_kib": 19456, "t": 2, "samples_ms": [40, 41]}'
done
expect_body "a new name taken where name-0 was" "j['stack'] == 'svc-gone'"
expect_http 200 "stack=svc-gone answers" GET "/v1/recommendation?target_ms=250&stack=svc-gone"
gone() { grep -c "stacks refitted from observations: .*svc-gone (not a stack: fewer than 5 observations)" "$TMP/log"; }
g0=$(gone)
expect_http 200 "DELETE ?stack=svc-gone: 200" DELETE "/v1/observations?stack=svc-gone" "${A[@]}"
expect_body "... five forgotten" "j['deleted'] == 5"
expect_http 400 "stack=svc-gone is no longer a name answers take" GET "/v1/recommendation?target_ms=250&stack=svc-gone"
# ... nor one the host's model holds: the default answer lists it no more.
for _ in $(seq 100); do [ "$(gone)" -gt "$g0" ] && break; sleep 0.1; done
[ "$(gone)" -gt "$g0" ] &&
	ok "the refit takes svc-gone out of the model" ||
	bad "no refit took svc-gone out: $(grep 'stacks refitted' "$TMP/log" | tail -2)"
expect_http 200 "the default answer" GET "/v1/recommendation?target_ms=250"
expect_body "... lists svc-gone no more" "'svc-gone' not in [x['name'] for x in j['stacks']]"

# A DELETE among more names than the daemon's list of stacks to refit
# holds (16 a second): it is not lost, every stack is refitted. First
# php-sodium corrected by five slow posts (no probe ran: observations),
# four times what its answers predict (the model the seed measured: a
# busy host's slower model still has an answer for 1000 ms above the
# floor). The first post says what that prediction is.
sleep 1.1
expect_http 201 "php-sodium's first observation" POST /v1/observations "${A[@]}" \
	--data-binary '{"stack": "php-sodium", "m_kib": 19456, "t": 2, "samples_ms": [1]}'
SLOW=$(python3 -c 'import json,sys; print(4 * json.load(open(sys.argv[1]))["predicted"]["ms"])' "$TMP/body") ||
	{ bad "no prediction in the 201"; SLOW=400; }
for i in 1 2 3 4; do
	obs "{\"stack\": \"php-sodium\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [$SLOW, $SLOW]}"
	[ "$(cat "$TMP/status")" = 201 ] || bad "php-sodium's observation $((i + 1)): HTTP $(cat "$TMP/status")"
done
wait_log "stacks refitted from observations: .*php-sodium \(observations" 10 ||
	bad "php-sodium's five observations were not refitted in 10 s"
expect_http 200 "stack=php-sodium from its observations" GET "/v1/recommendation?target_ms=1000&stack=php-sodium"
expect_body "... how: observations" "j['how'] == 'observations'"
sleep 2.1	# the bucket holds 20 again
urls=()
for i in $(seq 1 20); do
	urls+=(--next -s -o /dev/null -w '%{http_code}\n' -X POST "${A[@]}" -H 'Content-Type: application/json' \
		--data-binary "{\"stack\": \"name-$i\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [40]}" \
		"http://127.0.0.1:$PORT/v1/observations")
done
curl --parallel --parallel-max 20 "${urls[@]:1}" >"$TMP/codes"
expect_http 200 "DELETE ?stack=php-sodium right after 20 posts under 20 names" DELETE "/v1/observations?stack=php-sodium" "${A[@]}"
echo "       the 20 posts: $(sort "$TMP/codes" | uniq -c | tr '\n' ' ')"
# Over 16 names in the second between two refits: every stack refitted
# (a host too busy to post them within it refits them one by one, and
# the answer below must hold either way).
if wait_log "stacks refitted from observations: every stack" 5; then
	ok "more names than the list holds: every stack refitted"
else
	echo "       (the posts spread over several refits: $(grep -c 'stacks refitted' "$TMP/log") in all)"
fi
sleep 1.5
expect_http 200 "stack=php-sodium after" GET "/v1/recommendation?target_ms=1000&stack=php-sodium"
expect_body "... its observations forgotten in the answer too" "j['how'] != 'observations'"
# A '+' in a name is %2B in the query (a bare one is a space): the 400
# says so.
sleep 1.1
expect_http 201 "a name with a '+'" POST /v1/observations "${A[@]}" \
	--data-binary '{"stack": "a+b", "m_kib": 19456, "t": 2, "samples_ms": [40]}'
expect_http 400 "DELETE ?stack=a+b (a space): 400" DELETE "/v1/observations?stack=a+b" "${A[@]}"
expect_body "... saying a '+' is %2B" "j['param'] == 'stack' and \"a '+' is %2B\" in j['detail']"
expect_http 200 "DELETE ?stack=a%2Bb: 200" DELETE "/v1/observations?stack=a%2Bb" "${A[@]}"
expect_body "... a+b forgotten" "j['stack'] == 'a+b' and j['deleted'] == 1"
stop_daemon
finish
