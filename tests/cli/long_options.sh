#!/usr/bin/env bash
# --name=value is --name value in every command that takes long options
# (recommend, bench, hash, verify, db, soak, stress); a flag given a value
# is exit 2 naming it; a value is never split again (--ad '--tenant=x' is
# associated data, in either spelling); short options take their value
# apart, as in argon2.
. "$(dirname "$0")/lib.sh"
RUN=${RUN:?RUN must name tests/data/quick-run.json}
P=$PWTUNE
cd "$TMP" || exit 1

# same NAME A B: the two files' contents are the same and not empty.
same() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		ok "$1"
	else
		bad "$1: $(head -c 200 "$2") | $(head -c 200 "$3")"
	fi
}

# recommend: the answer, and JSON, the same in both spellings.
"$P" recommend --target-ms 250 --from "$RUN" --format phc >a 2>"$TMP/e"
"$P" recommend --target-ms=250 --from="$RUN" --format=phc >b 2>"$TMP/e"
same "recommend --target-ms=250 --from=RUN --format=phc" a b
"$P" recommend --target-ms 100 --from "$RUN" --memory-max 32MiB --json >a 2>"$TMP/e"
"$P" recommend --target-ms=100 --from="$RUN" --memory-max=32MiB --json >b 2>"$TMP/e"
same "recommend --memory-max=32MiB --json" a b
# The cap is taken: without it, 100 ms is answered with more than 32 MiB.
"$P" recommend --target-ms=100 --from="$RUN" --format=env >c 2>"$TMP/e"
m_capped=$(sed -n 's/.*"m_kib": \([0-9]*\).*/\1/p' b | head -1)
m_free=$(sed -n 's/.*ARGON2_M_KIB=\([0-9]*\).*/\1/p' c)
if [ -n "$m_capped" ] && [ -n "$m_free" ] && [ "$m_capped" -le 32768 ] &&
	[ "$m_free" -gt 32768 ]; then
	ok "recommend: --memory-max=32MiB is taken ($m_capped KiB, $m_free without)"
else
	bad "recommend: --memory-max=32MiB: '$m_capped' KiB, '$m_free' without"
fi

# A flag with a value: exit 2, naming it, nothing on stdout.
expect_status 2 "recommend --json=yes is bad usage" -- \
	"$P" recommend --target-ms 250 --from "$RUN" --json=yes
grep -qx "pwtune recommend: --json takes no value (given --json=...)" "$TMP/err" &&
	[ ! -s "$TMP/out" ] && ok "recommend --json=yes: says the flag takes no value" ||
	bad "recommend --json=yes: $(cat "$TMP/err")"
expect_status 2 "bench --no-json=1 is bad usage" -- "$P" bench --no-json=1
grep -q -- "--no-json takes no value" "$TMP/err" && ok "bench --no-json=1: named" ||
	bad "bench --no-json=1: $(cat "$TMP/err")"
printf password >pw
expect_status 2 "hash --json=1 is bad usage" -- sh -c "'$P' hash somesalt --json=1 <pw"
grep -qx "pwtune hash: --json takes no value (given --json=...)" "$TMP/err" &&
	ok "hash --json=1: says the flag takes no value" || bad "hash --json=1: $(cat "$TMP/err")"
# Every command's flags, --help too: exit 2, not their work or the help.
for args in "recommend --verify=1" "recommend --presets=1" "recommend --quiet=1" \
	"bench --markdown=1" "bench --list-presets=1" "bench --quiet=1" \
	"hash --help=x" "verify --help=x" "recommend --help=x" "bench --help=x" \
	"db list --help=x" "soak --help=x" "stress --help=x"; do
	read -r -a argv <<<"$args"
	flag=${argv[${#argv[@]} - 1]%%=*}
	expect_status 2 "$args is bad usage" -- "$P" "${argv[@]}"
	grep -q -- "^pwtune ${argv[0]}.*: $flag takes no value" "$TMP/err" && [ ! -s "$TMP/out" ] &&
		ok "$args: names $flag, nothing on stdout" || bad "$args: $(head -2 "$TMP/err")"
done
# An unknown name with a long value: named, the value not shown.
expect_status 2 "hash --tenant=SECRET is an unknown option" -- \
	sh -c "'$P' hash --tenant=hunter2hunter2 somesalt <pw"
grep -qx "pwtune hash: unknown option --tenant" "$TMP/err" &&
	ok "hash --tenant=SECRET: the name alone" || bad "hash --tenant=SECRET: $(cat "$TMP/err")"
# A bad value in the = spelling is named as in the other.
expect_status 2 "recommend --target-ms=250ms is bad usage" -- \
	"$P" recommend --target-ms=250ms --from "$RUN"
grep -qx "pwtune recommend: --target-ms must be a whole number from 1 to 600000 (milliseconds), not 250ms" "$TMP/err" &&
	ok "recommend --target-ms=250ms: the value named" ||
	bad "recommend --target-ms=250ms: $(cat "$TMP/err")"
# No name: not an option of any command.
expect_status 2 "hash --=x is an unknown option" -- sh -c "'$P' hash --=x somesalt <pw"
grep -q "unknown option --=x" "$TMP/err" && ok "hash --=x: shown whole" ||
	bad "hash --=x: $(cat "$TMP/err")"

# hash: the same encoded hash; a value that looks like an option is data.
sh -c "'$P' hash somesalt --memory 64KiB -t 1 --ad '--tenant=x' -e <pw" >a 2>"$TMP/e"
sh -c "'$P' hash somesalt --memory=64KiB -t 1 --ad='--tenant=x' -e <pw" >b 2>"$TMP/e"
same "hash --memory=64KiB --ad='--tenant=x'" a b
sh -c "'$P' hash somesalt --memory 64KiB -t 1 -e <pw" >c 2>"$TMP/e"
if [ -s c ] && ! cmp -s a c; then
	ok "hash: --ad '--tenant=x' is associated data (the hash differs without it)"
else
	bad "hash: --ad '--tenant=x' changed nothing"
fi
enc=$(cat a)

# verify: --backend= and --ad= as apart.
expect_status 0 "verify --backend=libargon2 --ad='--tenant=x'" -- \
	sh -c "'$P' verify --backend=libargon2 --ad='--tenant=x' '$enc' <pw"
expect_status 1 "verify --ad=other: a mismatch" -- \
	sh -c "'$P' verify --ad=other '$enc' <pw"

# bench, db: a store made and read with = everywhere.
expect_status 0 "bench --m=64KiB --t=1 --repeats=1 --db=STORE" -- \
	"$P" bench --m=64KiB --t=1 --repeats=1 --backend=libsodium --db="$TMP/s.db" --no-json -q
"$P" db list --db "$TMP/s.db" --limit 5 >a 2>"$TMP/e"
"$P" db list --db="$TMP/s.db" --limit=5 >b 2>"$TMP/e"
same "db list --db=STORE --limit=5" a b
"$P" db export --db "$TMP/s.db" --run 1 >a 2>"$TMP/e"
"$P" db export --db="$TMP/s.db" --run=1 >b 2>"$TMP/e"
same "db export --run=1" a b

# stress: --iterations=3 runs three (its report counts them).
expect_status 0 "stress --iterations=3" -- "$P" stress --iterations=3 -k 64 -t 1
grep -qE "^Iterations: +3," "$TMP/out" &&
	ok "stress --iterations=3: three" || bad "stress --iterations=3: $(head -5 "$TMP/out")"
expect_status 2 "soak --runtime=0 is out of range" -- "$P" soak --runtime=0
grep -qx "pwtune soak: --runtime must be a whole number from 1 to 2592000 (seconds), not 0" "$TMP/err" &&
	ok "soak --runtime=0: the value named" || bad "soak --runtime=0: $(cat "$TMP/err")"
expect_status 0 "soak --runtime=1 --threads=1 --collect-stats=1" -- \
	"$P" soak --runtime=1 --threads=1 -k 64 -t 1 --collect-stats=1

finish
