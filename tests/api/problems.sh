#!/usr/bin/env bash
# Problem types fit the error (issue 19): each refusal has the status,
# type and title of its kind (api/problem.c's catalogue), names the
# parameter at fault, and says what is allowed. Every parameter of every
# route, with bad values: empty, negative, not a number, too big, unknown.
. "$(dirname "$0")/lib.sh"

# The titles, as api/problem.c has them: a client may show them.
export TITLES='{"bad-parameter": "A parameter is not valid",
 "run-finished": "The run already finished",
 "no-run": "This host has no run in the store yet",
 "not-found": "No such resource",
 "not-ready": "No measurements yet",
 "cannot-meet-target": "The request cannot be met within policy"}'
SAYS=()

# problem STATUS SLUG PARAM NAME METHOD PATH [curl options]: the answer
# is STATUS, problem+json with type /problems/SLUG, SLUG's title, param
# PARAM ("-": none), and a detail holding each text of SAYS (then
# emptied); the body stays in $TMP/body.
problem() {
	local st=$1 slug=$2 param=$3 name=$4 why
	shift 4
	req "$@"
	if why=$(python3 - "$TMP/status" "$TMP/headers" "$TMP/body" "$st" "$slug" "$param" "${SAYS[@]}" 2>&1 <<'PY'
import json, os, sys
status, headers, body, st, slug, param = sys.argv[1:7]
titles = json.loads(os.environ["TITLES"])
got = open(status).read().strip()
if got != st:
    sys.exit("HTTP %s, wanted %s: %s" % (got, st, open(body).read()[:300]))
if "content-type: application/problem+json" not in open(headers).read().lower():
    sys.exit("not application/problem+json")
j = json.load(open(body))
want = {"status": int(st), "type": "/problems/" + slug, "title": titles[slug],
        "param": None if param == "-" else param}
for k, v in want.items():
    if j.get(k) != v:
        sys.exit("%s is %r, wanted %r: %s" % (k, j.get(k), v, j))
for t in sys.argv[7:]:
    if t not in j["detail"]:
        sys.exit("detail %r does not say %r" % (j["detail"], t))
PY
	); then
		ok "$name: $st $slug naming $param${SAYS[0]:+, says what is allowed}"
	else
		bad "$name: $why"
	fi
	SAYS=()
}

J=(-H "Content-Type: application/json")

# An empty store: no run yet.
start_daemon
A=(-H "Authorization: Bearer $(TOKEN)")
problem 409 no-run - "an observation before any run" POST /v1/observations \
	"${J[@]}" "${A[@]}" --data-binary '{"stack": "php", "m_kib": 19456, "t": 2, "samples_ms": [40]}'
problem 503 not-ready - "a recommendation before any run" GET "/v1/recommendation?target_ms=250"
stop_daemon

seed_store
start_daemon
A=(-H "Authorization: Bearer $(TOKEN)")
R=/v1/recommendation

# The issue's cases.
SAYS=("50, 95 or 99")
problem 400 bad-parameter percentile "percentile=90" GET "$R?target_ms=250&percentile=90"
SAYS=("must be a positive whole number" "1 to 600000")
problem 400 bad-parameter target_ms "target_ms=-5" GET "$R?target_ms=-5"
SAYS=("group = NAME" "host or fleet")
problem 400 bad-parameter scope "scope=group without a group" GET "$R?target_ms=250&scope=group"
SAYS=("already ended (done)")
problem 409 run-finished id "DELETE a finished run" DELETE /v1/runs/1 "${A[@]}"
SAYS=('$argon2id$, $argon2i$ or $argon2d$')
problem 400 bad-parameter encoded "check a bcrypt string" POST /v1/check "${J[@]}" \
	--data-binary '{"encoded": "$2b$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234"}'
grep -qF '$2b$' "$TMP/body" || grep -qF '$7$' "$TMP/body" &&
	bad "check: offers a format it does not take" || ok "check: offers no format it does not take"
SAYS=('$argon2id$, $argon2i$ or $argon2d$')
problem 400 bad-parameter encoded "check garbage" POST /v1/check "${J[@]}" --data-binary '{"encoded": "garbage"}'
problem 422 cannot-meet-target target_ms "a target the floor cannot meet: still 422" GET "$R?target_ms=1"
expect_body "422 comes with the closest answer" 'j["closest"]["predicted"]["ms"] > 1'

# Every query parameter of /v1/recommendation: empty, negative, not a
# number, too big, unknown: 400 naming it, with the range or the set, and
# the value given (", not abc"; an unknown stack says it its own way).
while IFS='|' read -r param value allowed; do
	[ -z "$param" ] && continue
	q="$param=$value"
	[ "$param" = target_ms ] || q="target_ms=250&$q"
	given="${value//%20/ }"
	SAYS=("$allowed" ", not ${given:-empty}")
	[ "$param$value" = stackcobol ] && SAYS=("$allowed" "unknown stack cobol")
	problem 400 bad-parameter "$param" "$param='$value'" GET "$R?$q"
done <<'EOF'
target_ms||positive whole number of milliseconds, from 1 to 600000
target_ms|0|from 1 to 600000
target_ms|-1|from 1 to 600000
target_ms|abc|from 1 to 600000
target_ms|1.5|from 1 to 600000
target_ms|600001|from 1 to 600000
target_ms|99999999999|from 1 to 600000
percentile||50, 95 or 99
percentile|-95|50, 95 or 99
percentile|p95|50, 95 or 99
percentile|100|50, 95 or 99
concurrency||from 1 to 1024
concurrency|0|from 1 to 1024
concurrency|-2|from 1 to 1024
concurrency|many|from 1 to 1024
concurrency|1025|from 1 to 1024
memory_max||up to 1 TiB
memory_max|-1|up to 1 TiB
memory_max|lots|up to 1 TiB
memory_max|2TiB|up to 1 TiB
parallelism||auto or a whole number from 1 to 255
parallelism|0|from 1 to 255
parallelism|-1|from 1 to 255
parallelism|two|from 1 to 255
parallelism|256|from 1 to 255
variant||argon2id, argon2i or argon2d
variant|argon3|argon2id, argon2i or argon2d
backend||libsodium, libargon2 or auto
backend|openssl|libsodium, libargon2 or auto
floor||owasp, rfc9106 or none
floor|nist|owasp, rfc9106 or none
objective||memory-first or attacker-cost
objective|speed|memory-first or attacker-cost
scope||host, group or fleet
scope|world|host, group or fleet
stack||letters, digits
stack|a%20b|letters, digits
stack|cobol|known are
EOF
SAYS=("is required" "from 1 to 600000")
problem 400 bad-parameter target_ms "no target_ms" GET "$R?percentile=95"
SAYS=("known: target_ms")
problem 400 bad-parameter m "an unknown parameter" GET "$R?target_ms=250&m=65536"
# A key the client made up is echoed as a value is: \xHH for a control.
SAYS=("known: target_ms")
problem 400 bad-parameter 'a\x1bb' "an unknown parameter with ESC in its name" GET "$R?target_ms=250&a%1bb=1"
# The value echoed is printable ASCII, at most 60 bytes of it: a control
# byte, one of a UTF-8 character or a backslash is \xHH (a '?' stays
# itself), a long value is cut.
SAYS=("from 1 to 600000, not 1\\x1b\\xc3\\xa9\\xff?\\x5c")
problem 400 bad-parameter target_ms "target_ms with ESC, UTF-8, ? and \\" GET "$R?target_ms=1%1b%c3%a9%ff%3f%5c"
SAYS=(", not $(printf '9%.0s' $(seq 60))...")
problem 400 bad-parameter target_ms "target_ms of 100 digits" GET "$R?target_ms=$(printf '9%.0s' $(seq 100))"

# GET /v1/observations?stack=
problem 400 bad-parameter stack "observations: stack=''" GET "/v1/observations?stack="
problem 400 bad-parameter stack "observations: stack='a b'" GET "/v1/observations?stack=a%20b"

# POST /v1/observations, each member.
obs() {	# obs PARAM NAME BODY ALLOWED
	SAYS=("$4")
	problem 400 bad-parameter "$1" "observation: $2" POST /v1/observations "${J[@]}" "${A[@]}" --data-binary "$3"
}
B='"stack": "php", "t": 2, "samples_ms": [40]'
obs stack "no stack" '{"m_kib": 19456, "t": 2, "samples_ms": [40]}' "is required"
obs stack "stack ''" '{"stack": "", "m_kib": 19456, "t": 2, "samples_ms": [40]}' "letters, digits"
obs variant "variant argon3" "{$B, \"m_kib\": 19456, \"variant\": \"argon3\"}" "argon2id, argon2i or argon2d"
obs m_kib "m_kib -1" "{$B, \"m_kib\": -1}" "from 8 to 4194304"
obs m_kib "m_kib \"abc\"" "{$B, \"m_kib\": \"abc\"}" "from 8 to 4194304"
obs m_kib "m_kib 2^40" "{$B, \"m_kib\": 1099511627776}" "from 8 to 4194304"
obs m_kib "m_kib 1.5" "{$B, \"m_kib\": 1.5}" "from 8 to 4194304"
obs t "t 0" '{"stack": "php", "m_kib": 19456, "t": 0, "samples_ms": [40]}' "from 1 to 1000"
obs p "p 256" "{$B, \"m_kib\": 19456, \"p\": 256}" "from 1 to 255"
obs k "k 0" "{$B, \"m_kib\": 19456, \"k\": 0}" "from 1 to 1024"
obs samples_ms "samples_ms []" '{"stack": "php", "m_kib": 19456, "t": 2, "samples_ms": []}' "1 to 256"
obs samples_ms "samples_ms [-1]" '{"stack": "php", "m_kib": 19456, "t": 2, "samples_ms": [-1]}' "above 0 and at most 600000"
obs samples_ms "samples_ms [\"x\"]" '{"stack": "php", "m_kib": 19456, "t": 2, "samples_ms": ["x"]}' "above 0 and at most 600000"
obs extra "an unknown member" "{$B, \"m_kib\": 19456, \"extra\": 1}" "known: stack"

# POST /v1/runs and /v1/check bodies.
SAYS=('"quick" or "full"')
problem 400 bad-parameter profile "runs: profile ''" POST /v1/runs "${J[@]}" "${A[@]}" --data-binary '{"profile": ""}'
problem 400 bad-parameter profile "runs: profile 5" POST /v1/runs "${J[@]}" "${A[@]}" --data-binary '{"profile": 5}'
problem 400 bad-parameter encoded "check: encoded ''" POST /v1/check "${J[@]}" --data-binary '{"encoded": ""}'
problem 400 bad-parameter encoded "check: encoded 5" POST /v1/check "${J[@]}" --data-binary '{"encoded": 5}'

# Ids in paths: 404 naming id, saying what an id is.
for id in 0 -1 abc 99999999999; do
	SAYS=("positive whole numbers")
	problem 404 not-found id "GET /v1/runs/$id" GET "/v1/runs/$id"
done
problem 404 not-found id "DELETE /v1/runs/-1" DELETE /v1/runs/-1 "${A[@]}"
problem 404 not-found id "no such run" DELETE /v1/runs/77 "${A[@]}"
SAYS=("32 hex digits")
problem 404 not-found id "GET /v1/hosts/xyz" GET /v1/hosts/xyz
stop_daemon
finish
