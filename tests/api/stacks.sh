#!/usr/bin/env bash
# Answers per client stack: stack= is a known name (the catalogue) or one
# with observations of this host, else 400 naming stack and listing the
# known names; the default answer says which stack it holds for and gives
# every stack's own answer and snippet (with its own m); stack=php stands
# on libargon2 and answers from it, or, when the store has no libargon2
# run, 422 naming stack (php is then "available": false in stacks).
. "$(dirname "$0")/lib.sh"

# A store with libsodium only first.
seed_store
start_daemon
T=$(TOKEN)
A=(-H "Content-Type: application/json" -H "Authorization: Bearer $T")
NAMES="libsodium libargon2 php php-sodium python-argon2-cffi python-pynacl go node-argon2 java-bouncycastle"

expect_http 400 "an unknown stack: 400" GET "/v1/recommendation?target_ms=250&stack=cobol"
expect_body "... naming stack and listing the known names" \
	"j['param'] == 'stack' and 'php' in j['detail'] and 'java-bouncycastle' in j['detail'] and 'cobol' in j['detail']"
expect_http 400 "a stack in capitals: 400" GET "/v1/recommendation?target_ms=250&stack=PHP"
expect_body "... asking whether php was meant" \
	"j['param'] == 'stack' and 'unknown stack PHP (did you mean php?)' in j['detail']"
expect_http 400 "a stack one letter off: 400" GET "/v1/recommendation?target_ms=250&stack=phpp"
expect_body "... asking whether php was meant" \
	"j['param'] == 'stack' and 'unknown stack phpp (did you mean php?)' in j['detail']"
expect_http 400 "stack=python: 400" GET "/v1/recommendation?target_ms=250&stack=python"
expect_body "... asking which of the two Python stacks was meant" \
	"'unknown stack python (did you mean python-argon2-cffi or python-pynacl?)' in j['detail']"
expect_http 400 "stack=cobol without target_ms: 400" GET "/v1/recommendation?stack=cobol"
expect_body "... naming target_ms in the detail too" \
	"j['param'] == 'target_ms' and j['detail'].startswith('target_ms is required')"
expect_http 400 "an unknown stack with scope=fleet: 400 too" GET "/v1/recommendation?target_ms=250&stack=cobol&scope=fleet"
expect_body "... naming stack" "j['param'] == 'stack'"

expect_http 200 "the default answer" GET "/v1/recommendation?target_ms=250"
expect_body "holds for libsodium, and lists every stack of the catalogue in order" \
	"j['for'] == 'libsodium' and [s['name'] for s in j['stacks']][:9] == '$NAMES'.split() and 'snippets' in j"
expect_body "without libargon2 measured, its stacks are not available, and say why" \
	"all(s['available'] is False and s['why'] == 'libargon2 not measured yet' for s in j['stacks'] if s['name'] in ('php', 'libargon2', 'python-argon2-cffi'))"
expect_body "... Go, Node and Java, which have their own code, say they are sized on its curve" \
	"all(s['available'] is False and s['why'] == 'libargon2 not measured yet (%s is sized on its curve, corrected for its own code)' % s['name'] for s in j['stacks'] if s['name'] in ('go', 'node-argon2', 'java-bouncycastle'))"
expect_body "the libsodium stacks have their answer, how, ratio and snippet" \
	"all(s['available'] and s['m_kib'] > 0 and s['how'] and s['default_answer_ratio'] > 0 and str(s['m_kib']) in s['snippet'] for s in j['stacks'] if s['name'] in ('libsodium', 'php-sodium', 'python-pynacl'))"
expect_body "heap_kib: Java's 32768, null for the others" \
	"[s['heap_kib'] for s in j['stacks'] if s['name'] == 'java-bouncycastle'] == [32768] and all(s['heap_kib'] is None for s in j['stacks'] if s['name'] != 'java-bouncycastle')"
# Java's snippet, its stack not available here, carries the default
# answer's work within its heap bound: m = 32768, t up to keep m x t.
expect_body "Java's snippet of the default answer (m over 32 MiB) stays within its heap bound, t raised" \
	"j['m_kib'] > 32768 and 'new Argon2PasswordEncoder(16, 32, 1, 32768, %d)' % (j['m_kib'] * j['t'] // 32768) in j['snippets']['java'] and 'heap bound' in j['snippets']['java']"
expect_body "libsodium was measured here; php-sodium's runtime was not probed (the store has no probe of it)" \
	"[s['how'] for s in j['stacks'] if s['name'] in ('libsodium', 'php-sodium')] == ['library measured here', 'library measured, runtime not probed here']"
expect_http 422 "stack=php without libargon2 measured: 422" GET "/v1/recommendation?target_ms=250&stack=php"
expect_body "... naming stack, and saying libargon2 is not measured" \
	"j['param'] == 'stack' and 'libargon2' in j['detail'] and 'not measured' in j['detail']"
# POST /v1/check for php then: 422 the same (a 200 without needs_rehash
# read as "keep it").
expect_http 422 "POST /v1/check with stack php, libargon2 not measured: 422" POST /v1/check \
	-H "Content-Type: application/json" --data-binary '{"encoded": "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA", "stack": "php"}'
expect_body "... naming stack, and saying libargon2 is not measured" \
	"j['param'] == 'stack' and 'libargon2' in j['detail'] and 'not measured' in j['detail']"
# While a run measures (libsodium's points come first), the same question
# is not refused: 503, naming the run, with Retry-After.
expect_http 202 "a run asked for" POST /v1/runs "${A[@]}" --data-binary '{"profile": "quick"}'
RUN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$TMP/body")
expect_http 503 "stack=php while run $RUN measures: 503, not 422" GET "/v1/recommendation?target_ms=250&stack=php"
expect_body "... naming stack, the run, and when to ask again" \
	"j['param'] == 'stack' and 'not measured' in j['detail'] and 'run $RUN measures it now' in j['detail']"
grep -qi '^Retry-After: 10' "$TMP/headers" && ok "... with Retry-After: 10" || bad "no Retry-After on the 503"
expect_http 202 "the run cancelled" DELETE "/v1/runs/$RUN" "${A[@]}"
wait_run "$RUN" '"status": *"(cancelled|done|failed)"' 60 || bad "run $RUN did not end after its cancel"
expect_http 200 "stack=php-sodium" GET "/v1/recommendation?target_ms=250&stack=php-sodium"
expect_body "answers for php-sodium, with its snippet" \
	"j['for'] == 'php-sodium' and j['backend'] == 'libsodium' and 'sodium_crypto_pwhash_str' in j['snippet']"
# Nothing measured answers the question: 422 naming the parameter that
# asked for it, and saying what would.
expect_http 422 "variant=argon2i, never measured: 422" GET "/v1/recommendation?target_ms=250&variant=argon2i"
expect_body "... naming variant, and the variant the runs measure" \
	"j['param'] == 'variant' and 'no argon2i measurements of libsodium (its runs measure argon2id)' in j['detail'] and '--json FILE' in j['detail']"
expect_http 422 "variant=argon2i&stack=python-pynacl: 422" GET "/v1/recommendation?target_ms=250&variant=argon2i&stack=python-pynacl"
expect_body "... naming variant, not stack" \
	"j['param'] == 'variant' and j['detail'].startswith('python-pynacl: this host') and 'argon2i' in j['detail']"
expect_http 422 "variant=argon2i&stack=php-sodium: 422 (its call hashes argon2id)" GET "/v1/recommendation?target_ms=250&variant=argon2i&stack=php-sodium"
expect_body "... naming variant, and what it hashes" \
	"j['param'] == 'variant' and j['detail'] == 'php-sodium: PHP sodium_crypto_pwhash_str() hashes argon2id only, not argon2i: ask for argon2id'"
expect_http 422 "parallelism=4 on libsodium alone: 422" GET "/v1/recommendation?target_ms=250&parallelism=4"
expect_body "... naming parallelism, and libsodium's p = 1" \
	"j['param'] == 'parallelism' and 'libsodium computes p = 1 only, and libargon2 was not measured at p = 4' in j['detail']"
expect_http 422 "backend=libargon2, not measured: 422" GET "/v1/recommendation?target_ms=250&backend=libargon2"
expect_body "... naming backend" \
	"j['param'] == 'backend' and 'libargon2' in j['detail']"
# A bare memory_max is KiB: 64 is too little, and the 422 says what there is.
expect_http 422 "memory_max=64 (KiB): 422" GET "/v1/recommendation?target_ms=250&memory_max=64"
expect_body "... saying 64 KiB, not what is left of it in whole MiB" \
	"'64 KiB of memory for each of 1 hash at once is too little' in j['detail'] and j['param'] == 'memory_max'"
expect_body "... with the reminder that a bare number is KiB" \
	"j['detail'].endswith('(memory_max=64 is KiB: a bare number is KiB, 64MiB is MiB)')"
expect_http 422 "memory_max=512KiB: 422" GET "/v1/recommendation?target_ms=250&memory_max=512KiB"
expect_body "... with a unit given, no reminder" \
	"j['param'] == 'memory_max' and 'bare number' not in j['detail']"
# A stack hashes through its own library: another backend is 400 naming
# backend (the same one is the same question: api.stack_checks).
expect_http 400 "stack=php-sodium&backend=libargon2: 400" GET "/v1/recommendation?target_ms=250&stack=php-sodium&backend=libargon2"
expect_body "... naming backend and the stack's library" \
	"j['param'] == 'backend' and 'must be libsodium or left out with stack=php-sodium' in j['detail'] and 'not libargon2' in j['detail']"

# A name only observations know stays valid once it has some.
S=php-8.2-custom
expect_http 400 "a stack with no observations yet: 400" GET "/v1/recommendation?target_ms=250&stack=$S"
for i in 1 2 3 4 5; do
	req POST /v1/observations "${A[@]}" --data-binary \
		"{\"stack\": \"$S\", \"m_kib\": 19456, \"t\": 2, \"samples_ms\": [40, 41]}"
done
expect_body "five observations stored" "j['stack'] == '$S'"
expect_http 200 "a stack with observations: 200" GET "/v1/recommendation?target_ms=250&stack=$S"
expect_body "... for that name, how: its observations, and their factor" \
	"j['for'] == '$S' and j['how'] == 'observations' and j['stack']['name'] == '$S' and j['stack']['applied'] is True and j['stack']['factor'] > 0"
stop_daemon

# Now with libargon2 measured too (the daemon reads the newest run), and
# made four times as slow as measured, so that the default answer
# (libsodium) is over the target in its stacks whatever this machine's
# ratio is, and php's own answer stays under the memory bound (twice the
# largest m measured, 128 MiB): at twice as slow, a quiet moment once
# measured libargon2 fast enough for php to reach it too, beside the
# default's.
"$PWTUNE" bench --m 8MiB,16MiB,32MiB,64MiB --t 1,3 --backend libsodium,libargon2 \
	--repeats 2 --json "$TMP/both.json" -q >/dev/null 2>&1 ||
	{ echo "cannot measure libargon2"; exit 1; }
python3 "$(dirname "$0")/../data/slow_backend.py" "$TMP/both.json" "$TMP/both.json" libargon2 4 ||
	{ echo "cannot slow libargon2 down"; exit 1; }
"$PWTUNE" db import --db "$VAR/pwtune.db" "$TMP/both.json" >/dev/null ||
	{ echo "cannot import the run"; exit 1; }
start_daemon
expect_http 200 "the default answer, libargon2 measured" GET "/v1/recommendation?target_ms=250"
expect_body "every catalogue stack is available" \
	"all(s['available'] for s in j['stacks'] if s['name'] in '$NAMES'.split())"
expect_body "each stack's snippet carries its own m" \
	"all(str(s['m_kib']) in s['snippet'] for s in j['stacks'] if s.get('snippet'))"
expect_body "the php snippet carries php's own memory_cost" \
	"[s for s in j['stacks'] if s['name'] == 'php'][0]['snippet'].count(\"'memory_cost' => %d\" % [s for s in j['stacks'] if s['name'] == 'php'][0]['m_kib']) == 1"
expect_body "php has its own m, under the default answer's" \
	"[s for s in j['stacks'] if s['name'] == 'php'][0]['m_kib'] < j['m_kib']"
# Its note sends to stack=php when php's own answer meets the target (a
# loaded host can put even the floor's least over it in a libargon2 four
# times as slow: then the note says that instead). The stacks the default
# would take as long in share one note: "In libargon2, php and go the
# default answer would take R x the target (N ms at p95): each has its own
# answer, ask with stack=NAME." (one stack: "ask with stack=php."; with
# PHP's and Python's libsodium stacks named when the default holds there).
# The note comparing the two libraries is not said beside them.
OVER_RE="r'In ((?:[A-Za-z0-9._-]+, )*(?:[A-Za-z0-9._-]+ and )?[A-Za-z0-9._-]+) the default answer would take ([0-9.]+) x the target \\(([0-9]+) ms at p95\\)(.*)$'"
expect_body "the default answer is over the target in php, and a note says so with the ratio" \
	"[s for s in j['stacks'] if s['name'] == 'php'][0]['default_answer_ratio'] > 1 and any('php' in re.split(', | and ', m.group(1)) and abs(float(m.group(2)) - [s for s in j['stacks'] if s['name'] == 'php'][0]['default_answer_ratio']) < 0.006 and (re.match((r': ask with stack=php' if m.group(1) == 'php' else r': each has its own answer, ask with stack=NAME') + r'(, or for PHP and Python hash through libsodium \\(php-sodium, python-pynacl\\))?\\.$', m.group(4)) if [s for s in j['stacks'] if s['name'] == 'php'][0]['met'] else re.match(r', and its own answer cannot meet it either \\(the closest admissible, m = [0-9]+ KiB, t = [0-9]+, [0-9.]+ ms\\)\\.$', m.group(4))) for m in (re.match($OVER_RE, n) for n in j['notes']) if m)"
expect_body "a note for every other stack over the target, none for the others" \
	"all(any(s['name'] in re.split(', | and ', m.group(1)) for m in (re.match($OVER_RE, n) for n in j['notes']) if m) == ((s.get('default_answer_ratio') or 0) > 1 and s['name'] != j['for']) for s in j['stacks'])"
expect_body "the libraries' comparison is left to the stacks' notes" \
	"not any(n.startswith('libargon2 as Debian builds it') for n in j['notes'])"
expect_body "... whose note names PHP's and Python's libsodium stacks, the default holding there" \
	"any(n.endswith(', or for PHP and Python hash through libsodium (php-sodium, python-pynacl).') and 'php' in re.split(', | and ', re.match($OVER_RE, n).group(1)) for n in j['notes'] if re.match($OVER_RE, n)) == all(s['available'] and s.get('default_answer_ratio') is not None and s['default_answer_ratio'] <= 1 for s in j['stacks'] if s['name'] in ('php-sodium', 'python-pynacl'))"
expect_body "stacks the default would take as long in share one note" \
	"len([m.group(2, 3) for m in (re.match($OVER_RE, n) for n in j['notes']) if m and m.group(4).startswith(':')]) == len(set(m.group(2, 3) for m in (re.match($OVER_RE, n) for n in j['notes']) if m and m.group(4).startswith(':'))) and len(set(round(s['default_answer_ratio'], 2) for s in j['stacks'] if (s.get('default_answer_ratio') or 0) > 1 and s['name'] != j['for'] and s.get('met'))) <= len([n for n in j['notes'] if re.match($OVER_RE, n)])"
# Each stack's entry carries its own answer's notes, which the default
# answer's do not say: that Java's runtime was not measured here.
expect_body "Java's entry has its own answer's notes: its runtime not measured here" \
	"any(n.startswith('For java-bouncycastle: its runtime was not measured on this host') for n in [s for s in j['stacks'] if s['name'] == 'java-bouncycastle'][0]['notes']) and not any(n.startswith('For java-bouncycastle') for n in j['notes'])"
expect_body "... and the entry of the stack the answer is for has none of its own" \
	"[s for s in j['stacks'] if s['name'] == j['for']][0]['notes'] == []"
python3 -c 'import json,sys; print(json.dumps([s for s in json.load(open(sys.argv[1]))["stacks"] if s["name"] == "java-bouncycastle"][0]["notes"]))' "$TMP/body" > "$TMP/java_notes"
read -r PHP_M PHP_T PHP_P < <(python3 -c 'import json,sys; s=[s for s in json.load(open(sys.argv[1]))["stacks"] if s["name"] == "php"][0]; print(s["m_kib"], s["t"], s["p"])' "$TMP/body")
# A target the default answer cannot meet (422): no note tells to ask
# with the stack the answer is already for.
expect_http 422 "target_ms=5: 422" GET "/v1/recommendation?target_ms=5"
expect_body "... no note sends to stack=libsodium (the answer's own)" \
	"not any(n.startswith('In libsodium the default answer') for n in (j.get('notes') or []) + ((j.get('closest') or {}).get('notes') or []))"
# One library, one answer: libargon2's stack is its curve (a C probe of
# it, which this store has none of, is not applied: unit.test_stack).
expect_http 200 "backend=libargon2" GET "/v1/recommendation?target_ms=300&backend=libargon2"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["m_kib"], j["t"], j["p"])' "$TMP/body" > "$TMP/a2"
expect_http 200 "stack=libargon2, the same question" GET "/v1/recommendation?target_ms=300&stack=libargon2"
expect_body "... the same parameters as backend=libargon2" \
	"'%d %d %d' % (j['m_kib'], j['t'], j['p']) == open('$TMP/a2').read().strip()"
expect_http 200 "stack=php" GET "/v1/recommendation?target_ms=250&stack=php"
expect_body "answers for php from libargon2, its m as in stacks" \
	"j['for'] == 'php' and j['backend'] == 'libargon2' and j['m_kib'] == $PHP_M and \"'memory_cost' => $PHP_M\" in j['snippet']"
expect_body "... and its snippet says to time it where it runs (not probed here)" \
	"'POST the result to' in j['snippet'] and j['how'] == 'library measured, runtime not probed here'"
expect_body "stack=php: every language's snippet carries its own stack's answer" \
	"\"'memory_cost' => $PHP_M,\" in j['snippets']['php'] and 'timeCost: 1,' not in j['snippets']['node']"
expect_http 200 "stack=java-bouncycastle" GET "/v1/recommendation?target_ms=250&stack=java-bouncycastle"
expect_body "... its notes hold those of its entry in stacks" \
	"all(n in j['notes'] for n in json.load(open('$TMP/java_notes'))) and json.load(open('$TMP/java_notes'))"
expect_http 200 "the default answer for 1000 ms" GET "/v1/recommendation?target_ms=1000"
expect_body "Java's entry: within its heap bound, and its notes say so" \
	"[s for s in j['stacks'] if s['name'] == 'java-bouncycastle'][0]['m_kib'] <= 32768 and any(n.startswith('For java-bouncycastle: its answers stay at or below m = 32768 KiB, t making up the time') for n in [s for s in j['stacks'] if s['name'] == 'java-bouncycastle'][0]['notes'])"
expect_http 200 "the default answer again" GET "/v1/recommendation?target_ms=250"
expect_body "the default's snippets: php's at php's m, C's at the default's own" \
	"\"'memory_cost' => $PHP_M,\" in j['snippets']['php'] and str(j['m_kib']) in j['snippets']['c'] and str(j['m_kib']) not in j['snippets']['php']"
# POST /v1/check for a PHP service: weighed against php's answer, not
# the default one (which takes longer in PHP: it said weaker, rehash to
# the default's m); without stack, against the default answer. php's t
# and p as answered (t = 1 is not certain on a noisy measurement).
PHP_PHC="\$argon2id\$v=19\$m=$PHP_M,t=$PHP_T,p=$PHP_P\$c29tZXNhbHRzb21lc2FsdA\$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA"
chk() { expect_http "$1" "$2" POST /v1/check -H "Content-Type: application/json" --data-binary "$3"; }
chk 200 "POST /v1/check of php's answer with stack php" "{\"encoded\": \"$PHP_PHC\", \"stack\": \"php\"}"
expect_body "... for php: no rehash, against php's own answer" \
	"j['for'] == 'php' and j['needs_rehash']['differs'] is False and j['needs_rehash']['against'].startswith('\$argon2id\$v=19\$m=$PHP_M,')"
chk 200 "POST /v1/check of php's answer without a stack" "{\"encoded\": \"$PHP_PHC\"}"
expect_body "... for libsodium: weaker than the default answer" \
	"j['for'] == 'libsodium' and j['needs_rehash']['weaker'] is True"
chk 400 "POST /v1/check with an unknown stack: 400" "{\"encoded\": \"$PHP_PHC\", \"stack\": \"cobol\"}"
expect_body "... naming stack and the known ones" "j['param'] == 'stack' and 'php' in j['detail'] and 'did you mean' not in j['detail']"
chk 400 "POST /v1/check with stack Python-PyNaCl: 400" "{\"encoded\": \"$PHP_PHC\", \"stack\": \"Python-PyNaCl\"}"
expect_body "... asking whether python-pynacl was meant" "j['param'] == 'stack' and '(did you mean python-pynacl?)' in j['detail']"
chk 400 "POST /v1/check with a stack that is not a string: 400" "{\"encoded\": \"$PHP_PHC\", \"stack\": 7}"
expect_body "... naming stack" "j['param'] == 'stack'"
expect_http 400 "stack=php-sodium&parallelism=2: a usage error" GET "/v1/recommendation?target_ms=250&stack=php-sodium&parallelism=2"
expect_body "named: parallelism" "j['param'] == 'parallelism' and 'p = 1 only' in j['detail']"
# A floor Java's heap bound keeps every answer from: 422 naming floor and
# the bound (RFC 9106 asks 64 MiB at t = 3, the bound is 32 MiB).
expect_http 422 "stack=java-bouncycastle&floor=rfc9106: 422" GET "/v1/recommendation?target_ms=5000&stack=java-bouncycastle&floor=rfc9106"
expect_body "... naming floor, and the heap bound" \
	"j['param'] == 'floor' and 'no parameters at or below m = 32768 KiB meet the rfc9106 floor here' in j['detail'] and 'heap' in j['detail']"
stop_daemon
finish
