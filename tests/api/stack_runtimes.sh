# tests/api/stack_runtimes.sh: answers that hold in the runtime that
# hashes. A real start-up run (memory capped at 64 MiB) with the probes of
# PHP and Python's argon2-cffi; then for each, the answer for 250 ms at p95
# with stack=NAME is timed in that runtime itself (not by pwtune): its p95
# must stay under the target, loosely (x 1.30: the tight bound, [0.85,
# 1.00], is bench/stacks'; this VM's hashes move 10 % from one moment to
# the next). It runs alone (RUN_SERIAL). 250 ms, not 100: at 100 ms a
# slow moment of a loaded CI host made the cheapest owasp floor (m = 7168
# KiB, t = 5) predicted at 100.5 ms in php, an honest 422.
TARGET=250
. "$(dirname "$0")/lib.sh" || exit 1

PY=/usr/bin/python3
have_php=0 have_py=0
command -v php >/dev/null 2>&1 &&
	php -r 'exit(defined("PASSWORD_ARGON2ID") ? 0 : 1);' && have_php=1
[ -x "$PY" ] && "$PY" -c 'import argon2' 2>/dev/null && have_py=1
if [ $have_php = 0 ] && [ $have_py = 0 ]; then
	echo "SKIP: neither php with PASSWORD_ARGON2ID nor $PY with argon2-cffi (make deps installs them)"
	exit 77
fi
probes=""
[ $have_php = 1 ] && probes="php"
[ $have_py = 1 ] && probes="${probes:+$probes,}python-argon2-cffi"

start_daemon PWTUNED_STARTUP_PROFILE=quick PWTUNED_PROBES="$probes" \
	PWTUNED_MEMORY_MAX=64MiB
# The start-up run: libsodium, libargon2, then the probes (bounded).
for _ in $(seq 240); do
	req GET "/v1/recommendation?target_ms=$TARGET"
	if grep -q '"stacks"' "$TMP/body" && python3 - "$TMP/body" "$probes" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
want = sys.argv[2].split(",")
got = {s["name"]: s.get("how") for s in j.get("stacks", [])}
sys.exit(0 if all(got.get(n) == "probed here" for n in want) else 1)
PY
	then break; fi
	sleep 0.5
done
expect_body "every probe ran ($probes)" \
	"all(s.get('how') == 'probed here' for s in j['stacks'] if s['name'] in '$probes'.split(','))"
# PHP's password_hash and Python's argon2-cffi from Debian's packages load
# Debian's libargon2, the file the daemon hashes with: their probes' ratio
# to the curve is the host's speed at two moments, shown and not applied.
# (A pip-installed argon2-cffi with its own build shares nothing.)
# Which do, read here from each runtime's map against the daemon's.
libid() { awk '$6 ~ /\/libargon2\.so/ { print $4, $5; exit }' "$1"; }
own=$(libid "/proc/$PID/maps")
shared="" unshared=""
for name in ${probes//,/ }; do
	case $name in
	php) id=$(php -r 'echo file_get_contents("/proc/self/maps");' | libid /dev/stdin) ;;
	*) id=$("$PY" -c 'import argon2; print(open("/proc/self/maps").read(), end="")' | libid /dev/stdin) ;;
	esac
	if [ -n "$own" ] && [ "$id" = "$own" ]; then
		shared="${shared:+$shared,}$name"
	else
		unshared="${unshared:+$unshared,}$name"
	fi
done
echo "  the daemon's libargon2: ${own:-none}; sharing it: ${shared:-none}; not: ${unshared:-none}"
if [ -n "$unshared" ]; then
	expect_body "each probe whose runtime did not map the daemon's libargon2 ($unshared) shares nothing" \
		"all(s['correction']['shares_library'] is None for s in j['stacks'] if s['name'] in '$unshared'.split(','))"
fi
if [ -n "$shared" ]; then
	expect_body "each probe that loaded libargon2 ($shared) hashed through the daemon's own: its correction shown, not applied" \
		"all('libargon2.so' in (s['correction']['shares_library'] or '') and s['correction']['applied'] is False for s in j['stacks'] if s['name'] in '$shared'.split(','))"
	expect_body "... each says it is answered as libargon2 (the library itself as nothing)" \
		"all(s['answered_as'] == ('libargon2' if s['name'] in '$shared'.split(',') else None) for s in j['stacks'] if s['name'] in '$shared'.split(',') + ['libargon2', 'libsodium'])"
	expect_body "... and each answers as libargon2: the same m and t" \
		"all((s['m_kib'], s['t']) == [(l['m_kib'], l['t']) for l in j['stacks'] if l['name'] == 'libargon2'][0] for s in j['stacks'] if s['name'] in '$shared'.split(','))"
fi

# time_in NAME M T P: p95 (nearest rank) of 12 hashes after 2 warm-ups,
# in the runtime of stack NAME, in ms.
time_in() {
	case $1 in
	php) php -r '
		[$m, $t, $p] = [(int)$argv[1], (int)$argv[2], (int)$argv[3]];
		$o = ["memory_cost" => $m, "time_cost" => $t, "threads" => $p];
		$s = [];
		for ($i = 0; $i < 14; $i++) {
			$a = hrtime(true);
			password_hash("correct horse", PASSWORD_ARGON2ID, $o);
			if ($i >= 2) $s[] = (hrtime(true) - $a) / 1e6;
		}
		sort($s);
		printf("%.1f\n", $s[(int)ceil(0.95 * count($s)) - 1]);' "$2" "$3" "$4" ;;
	python-argon2-cffi) "$PY" -c '
import math, sys, time
from argon2 import PasswordHasher
m, t, p = map(int, sys.argv[1:4])
ph = PasswordHasher(time_cost=t, memory_cost=m, parallelism=p)
s = []
for i in range(14):
    a = time.perf_counter()
    ph.hash("correct horse")
    if i >= 2:
        s.append((time.perf_counter() - a) * 1000)
s.sort()
print("%.1f" % s[math.ceil(0.95 * len(s)) - 1])' "$2" "$3" "$4" ;;
	esac
}

field() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$TMP/body"; }

for name in ${probes//,/ }; do
	expect_http 200 "$name: 200" GET "/v1/recommendation?target_ms=$TARGET&stack=$name"
	expect_body "$name: the answer is for $name" "j['for'] == '$name'"
	case ",$shared," in
	*",$name,"*) expect_body "$name: answered as libargon2 (stack=)" "j['answered_as'] == 'libargon2'" ;;
	*) expect_body "$name: answered as itself (stack=)" "j['answered_as'] is None" ;;
	esac
	read -r m t p <<<"$(field "j['m_kib'], j['t'], j['p']")"
	ms=$(time_in "$name" "$m" "$t" "$p")
	echo "  $name: m=$m t=$t p=$p: p95 $ms ms in the runtime (target $TARGET)"
	# A busy moment of this VM lifts one p95 of 12 by a third, and a slow
	# phase can last seconds (in CI the run's own verifications once
	# measured 1.10 to 1.24 x the model it had just fitted, and php took
	# 1.36 then 1.38 x 100 ms); an answer made for another runtime (1.37
	# to 2.83 x before answers per stack) is over every time. Over: timed
	# once more at once, and once more after a 10 s pause.
	for again in 1 2; do
		awk -v v="$ms" -v x="$TARGET" 'BEGIN { exit !(v > 0 && v <= 1.3 * x) }' && break
		[ "$again" = 2 ] && sleep 10
		ms=$(time_in "$name" "$m" "$t" "$p")
		echo "  $name: timed again: p95 $ms ms"
	done
	if awk -v v="$ms" -v x="$TARGET" 'BEGIN { exit !(v > 0 && v <= 1.3 * x) }'; then
		ok "$name: its answer holds in $name ($ms ms <= 1.30 x $TARGET)"
	else
		bad "$name: its answer took $ms ms at p95 in $name (target $TARGET)"
	fi
done
# The CLI from the daemon's store (once its run has finished) says so
# too, in its table and its stack's line.
if [ -n "$shared" ]; then
	first=${shared%%,*}
	for _ in $(seq 120); do
		"$PWTUNE" recommend --target-ms $TARGET --db "$VAR/pwtune.db" --stack "$first" >"$TMP/cli" 2>&1 && break
		grep -q "no finished run" "$TMP/cli" || break
		sleep 0.5
	done
	if grep -qF "Stack:       $first (probed here, answered as libargon2)" "$TMP/cli" &&
		"$PWTUNE" recommend --target-ms $TARGET --db "$VAR/pwtune.db" >"$TMP/cli" 2>&1 &&
		grep -qE "^  $first +[0-9]+ MiB .* probed here, answered as libargon2\$" "$TMP/cli" &&
		grep -qF "(answered as a library: its runtime hashes through that library's own file here" "$TMP/cli"; then
		ok "pwtune recommend --db: $first probed here, answered as libargon2"
	else
		bad "pwtune recommend --db: $first not said to be answered as libargon2"
		cat "$TMP/cli"
	fi
fi
stop_daemon
finish
