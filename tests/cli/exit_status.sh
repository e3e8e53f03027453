#!/usr/bin/env bash
# Exit statuses mean one thing in every subcommand (pwtune(1), EXIT
# STATUS): 0 ok, 1 a negative answer, 2 bad usage or input, 3 the
# environment (a file or store missing or unreadable, not enough memory).
# A bad value is one line naming the flag, what was given and what is
# allowed, then one line saying where the help is: never the usage.
. "$(dirname "$0")/lib.sh"
RUN=${RUN:?RUN must name tests/data/quick-run.json}
P=$PWTUNE
cd "$TMP" || exit 1

# bad_value CMD-AS-TYPED FIRST-LINE -- COMMAND...: exit 2, two lines on
# stderr, the first exactly FIRST-LINE, the second the pointer to help.
bad_value() {
	local cmd=$1 line=$2
	shift 3
	expect_status 2 "$cmd: $line" -- "$@"
	if [ "$(sed -n 1p "$TMP/err")" = "$line" ] &&
	    [ "$(sed -n 2p "$TMP/err")" = "Try 'pwtune help $cmd' for its options." ] &&
	    [ "$(wc -l <"$TMP/err")" -eq 2 ] && [ ! -s "$TMP/out" ]; then
		ok "$cmd: one line, then where the help is"
	else
		bad "$cmd: stderr is not the one line and the pointer:"
		sed 's/^/  stderr: /' "$TMP/err" | head -4
	fi
}

printf 'password' >"$TMP/pw"
bad_value hash "pwtune hash: -m must be a whole number from 3 to 32 (log2 of KiB: 16 is 64 MiB), not 64" -- \
	sh -c "'$P' hash somesalt -m 64 <'$TMP/pw'"
bad_value hash "pwtune hash: -p needs a value: a whole number from 1 to 16777215 (lanes)" -- \
	sh -c "'$P' hash somesalt -p <'$TMP/pw'"
bad_value verify "pwtune verify: --backend must be auto, libargon2 or libsodium, not openssl" -- \
	"$P" verify --backend openssl '$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHQ$aGFzaGhhc2g'
bad_value recommend "pwtune recommend: --target-ms must be a whole number from 1 to 600000 (milliseconds), not 250ms" -- \
	"$P" recommend --target-ms 250ms --from "$RUN"
# A stack hashes through its own library.
bad_value recommend "pwtune recommend: --backend libsodium with --stack php: php hashes through libargon2 (give --backend libargon2, or leave it out)" -- \
	"$P" recommend --target-ms 250 --stack php --backend libsodium --from "$RUN"
# A value with control bytes, UTF-8 and a backslash: shown as \xHH, so
# that the terminal is safe and '?' stays a '?'.
bad_value recommend 'pwtune recommend: --target-ms must be a whole number from 1 to 600000 (milliseconds), not 1\x1b[31m\xc3\xa9?\x5c' -- \
	"$PWTUNE" recommend --target-ms $'1\x1b[31m\xc3\xa9?\\'
# Spaces and tabs alone: said so, not printed as nothing to see.
bad_value recommend "pwtune recommend: --target-ms must be a whole number from 1 to 600000 (milliseconds), not blank (spaces and tabs only)" -- \
	"$P" recommend --target-ms $' \t ' --from "$RUN"
bad_value recommend "pwtune recommend: --percentile must be 50, 95 or 99, not 90" -- \
	"$P" recommend --target-ms 250 --percentile 90 --from "$RUN"
bad_value recommend "pwtune recommend: --memory-max must be a size such as 64MiB or 1GiB (a bare number is KiB), from 1 KiB to 1024 GiB, not 2TiB" -- \
	"$P" recommend --target-ms 250 --memory-max 2TiB --from "$RUN"
bad_value recommend "pwtune recommend: unknown option --targetms" -- \
	"$P" recommend --targetms 250
bad_value bench "pwtune bench: --repeats must be a whole number from 1 to 1000 (rounds), not 0" -- \
	"$P" bench --repeats 0
bad_value bench "pwtune bench: --t must be a list of whole numbers from 1 to 1000 (passes), not 1,x" -- \
	"$P" bench --t 1,x
bad_value stress "pwtune stress: --iterations must be a whole number from 1 to 1000000, not many" -- \
	"$P" stress --iterations many
bad_value stress "pwtune stress: --output-type must be encoded or raw, not hex" -- \
	"$P" stress --output-type hex
bad_value soak "pwtune soak: --threads must be a whole number from 1 to 64, not 0" -- \
	"$P" soak --threads 0
bad_value soak "pwtune soak: --runtime needs a value: a whole number from 1 to 2592000 (seconds)" -- \
	"$P" soak --runtime
bad_value repl "pwtune repl: the preset must be a known preset (pwtune bench --list-presets), not Nope" -- \
	"$P" repl Nope
bad_value "db list" "pwtune db list: --limit must be a whole number from 1 to 1000 (runs), not 0" -- \
	"$P" db list --db "$TMP/none.db" --limit 0
bad_value "db export" "pwtune db export: --run must be a whole number from 1 to 4294967295 (a run id), not last" -- \
	"$P" db export --db "$TMP/none.db" --run last
bad_value "db import" "pwtune db import: --db needs a value: a store (an SQLite file or a postgresql:// URI)" -- \
	"$P" db import x.json --db
bad_value "db check" "pwtune db check: unknown option --limit" -- \
	"$P" db check --db "$TMP/none.db" --limit 5
bad_value db "pwtune db: the command must be list, export, import or check, not frob" -- \
	"$P" db frob

# Every flag that takes a value, in every command: a bad value and a
# missing one are exit 2 and two lines, the first naming the flag.
sweep() { # CMD FLAG...: zz9 as the value, then no value
	local cmd=$1 flag n rc line
	shift
	for flag in "$@"; do
		for args in "$flag zz9" "$flag"; do
			# shellcheck disable=SC2086
			"$P" $cmd $args </dev/null >/dev/null 2>"$TMP/err"
			rc=$?
			n=$(wc -l <"$TMP/err")
			line=$(head -1 "$TMP/err")
			case $line in
			"pwtune $cmd: $flag "*) named=1 ;;
			*) named=0 ;;
			esac
			if [ "$rc" -eq 2 ] && [ "$n" -eq 2 ] && [ "$named" -eq 1 ]; then
				ok "$cmd $args: 2, one line naming $flag"
			else
				bad "$cmd $args: exit $rc, $n lines: $line"
			fi
		done
	done
}
sweep hash -t -m -k --memory -p -l -v --backend
sweep verify --backend
sweep recommend --target-ms --percentile --concurrency --memory-max \
	--parallelism --variant --backend --floor --objective --format --check \
	--scope --max-age-days
sweep bench --profile --preset -m --m --memory --t --p --concurrency \
	--variant --backend --baseline --repeats --memory-max
sweep stress --iterations --output-type --salt-length --password-length \
	--secret-length --ad-length --hash-length --type --version -m -k \
	--memory --memory-cost --time-cost -t --parallelism -p --backend \
	--saltLength --memoryCost
sweep soak --threads --runtime --collect-stats -m -k --memory --memoryCost \
	-t -p --type --backend
sweep "db list" --limit
sweep "db export" --run

# A missing or unreadable file, a store that cannot be opened, a host
# without the memory asked for: 3, naming the file.
expect_status 3 "hash: missing secret file" -- sh -c "'$P' hash somesalt --secret-file '$TMP/nope' <'$TMP/pw'"
expect_stderr "hash: missing secret file: named" "$TMP/nope: No such file or directory"
expect_status 3 "hash: m over the host" -- sh -c "'$P' hash somesalt -m 32 <'$TMP/pw'"
expect_status 3 "verify: missing secret file" -- sh -c "'$P' verify --secret-file '$TMP/nope' '\$argon2id\$v=19\$m=8,t=1,p=1\$c29tZXNhbHQ\$aGFzaGhhc2g' <'$TMP/pw'"
expect_status 3 "recommend --from: missing file" -- "$P" recommend --target-ms 250 --from "$TMP/nope.json"
expect_stderr "recommend --from: missing file named" "pwtune recommend: --from $TMP/nope.json: No such file or directory"
mkdir "$TMP/dir.json"
expect_status 3 "recommend --from: a directory" -- "$P" recommend --target-ms 250 --from "$TMP/dir.json"
expect_status 3 "recommend --db: a store in a missing directory" -- "$P" recommend --target-ms 250 --db "$TMP/no/such.db"
expect_status 3 "recommend --db: a missing store" -- "$P" recommend --target-ms 250 --db "$TMP/nope.db"
expect_stderr "recommend --db: the option named" "pwtune recommend: --db $TMP/nope.db: No such file or directory"
expect_status 2 "recommend --memory-max 64: 64 KiB, too little" -- "$P" recommend --target-ms 250 --memory-max 64
expect_stderr "... saying a size without a unit is KiB" "(--memory-max: a size without a unit is KiB, --memory-max 64MiB is 64 MiB)"
expect_status 2 "recommend --from with --memory-max 64: too little" -- "$P" recommend --target-ms 250 --memory-max 64 --from "$RUN"
expect_stderr "... saying a size without a unit is KiB" "(--memory-max: a size without a unit is KiB, --memory-max 64MiB is 64 MiB)"
! grep -q "raise memory_max" "$TMP/err" && ok "... naming no API parameter" || bad "the CLI says memory_max"
expect_status 3 "bench --db: a store in a missing directory" -- "$P" bench --m 1MiB --t 1 --db "$TMP/no/such.db" --no-json -q
expect_status 3 "stress: m over the host" -- "$P" stress -m 32 --iterations 1
expect_status 3 "soak: m over the host" -- "$P" soak -m 32 --runtime 1
for verb in list export check; do
	expect_status 3 "db $verb: missing store" -- "$P" db $verb --db "$TMP/none.db"
	expect_stderr "db $verb: missing store named" "$TMP/none.db: No such file or directory"
done
expect_status 3 "db import: missing file" -- "$P" db import --db "$TMP/i.db" "$TMP/nope.json"
expect_stderr "db import: missing file named" "pwtune db import: $TMP/nope.json: No such file or directory"
[ ! -e "$TMP/i.db" ] && ok "db import: no store made for a missing file" || bad "db import: store made"

# A file that is there but malformed is bad input: 2.
printf '{"schema": ' >"$TMP/broken.json"
expect_status 2 "recommend --from: malformed JSON" -- "$P" recommend --target-ms 250 --from "$TMP/broken.json"
expect_stderr "recommend --from: malformed JSON named" "$TMP/broken.json:1:"
expect_status 2 "db import: malformed JSON" -- "$P" db import --db "$TMP/i.db" "$TMP/broken.json"
expect_status 2 "verify: malformed hash" -- sh -c "'$P' verify '\$argon2id\$v=19\$m=8' <'$TMP/pw'"

# A negative answer: 1.
enc=$("$P" hash somesalt -id -k 64 -t 1 -e <"$TMP/pw")
expect_status 0 "verify: the right password" -- sh -c "'$P' verify '$enc' <'$TMP/pw'"
expect_status 1 "verify: a wrong password" -- sh -c "printf nope | '$P' verify '$enc'"
expect_status 1 "recommend: a target that cannot be met" -- "$P" recommend --target-ms 1 --from "$RUN"
"$P" db import --db "$TMP/s.db" "$RUN" >/dev/null 2>&1
expect_status 1 "db export: a run that is not there" -- "$P" db export --db "$TMP/s.db" --run 9
expect_status 0 "db check: ok" -- "$P" db check --db "$TMP/s.db"
cp "$TMP/s.db" "$TMP/c.db"
printf 'A' | dd of="$TMP/c.db" bs=1 seek=21 conv=notrunc 2>/dev/null
expect_status 1 "db check: a corrupt store" -- "$P" db check --db "$TMP/c.db"
finish
