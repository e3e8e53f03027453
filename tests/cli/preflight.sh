#!/usr/bin/env bash
# Nothing is measured that cannot be written or cannot run: bench's --json
# and --csv files, a memory budget under the smallest point, and
# recommend's --check and --format are checked before the first hash
# (the host's probe included), and the command says so and which.
. "$(dirname "$0")/lib.sh"
P=$PWTUNE
cd "$TMP" || exit 1

# before NAME: nothing was measured (no "N points" line, no file left).
before() {
	if grep -q "points\? (" "$TMP/err" || grep -q "effective parallelism" "$TMP/err"; then
		bad "$1: it measured first"
	else
		ok "$1: before measuring"
	fi
}
expect_status 3 "bench --json into a missing directory" -- \
	timeout 60 "$P" bench --m 2MiB --t 1 --backend libsodium --repeats 1 --json "$TMP/no/r.json"
expect_stderr "bench --json: the file named" "pwtune bench: $TMP/no/r.json cannot be written: No such file or directory (nothing measured)"
before "bench --json"
mkdir "$TMP/d.json"
expect_status 3 "bench --json onto a directory" -- \
	timeout 60 "$P" bench --m 2MiB --t 1 --backend libsodium --repeats 1 --json "$TMP/d.json"
expect_stderr "bench --json onto a directory: named" "$TMP/d.json cannot be written: Is a directory"
before "bench --json onto a directory"
touch "$TMP/plain"
expect_status 3 "bench --csv under a file" -- \
	timeout 60 "$P" bench --m 2MiB --t 1 --backend libsodium --repeats 1 --no-json --csv "$TMP/plain/r.csv"
expect_stderr "bench --csv: the file named" "$TMP/plain/r.csv cannot be written: Not a directory"
before "bench --csv"
ls "$TMP"/bench_*.json >/dev/null 2>&1 && bad "a default JSON file was left" || ok "no JSON file left behind"
# A CSV file that can be written and was not there is not left behind
# when the run then fails for another reason.
expect_status 3 "bench --csv fine, --db not" -- \
	timeout 60 "$P" bench --m 2MiB --t 1 --no-json --csv "$TMP/ok.csv" --db "$TMP/no/s.db"
[ ! -e "$TMP/ok.csv" ] && ok "the CSV checked is not left empty" || bad "an empty CSV was left"

expect_status 2 "bench --memory-max under the smallest point" -- \
	timeout 60 "$P" bench --memory-max 4MiB --m 8MiB,16MiB --t 1 --no-json
expect_stderr "memory-max: the flag, the need and the value" \
	"pwtune bench: --memory-max must be at least 8 MiB, what the smallest point needs, not 4 MiB (nothing measured)"
before "bench --memory-max"
expect_status 2 "bench --memory-max under the quick profile's smallest" -- \
	timeout 60 "$P" bench --memory-max 2MiB --no-json
expect_stderr "quick profile: 8 MiB" "must be at least 8 MiB"
before "bench --memory-max, quick profile"
expect_status 0 "bench --memory-max over one point: the rest skipped" -- \
	timeout 60 "$P" bench --memory-max 3MiB --m 2MiB,4MiB --t 1 --backend libsodium --repeats 1 --no-json -q
expect_stdout "... and said" "Not measured:"

# recommend --check takes an Argon2 PHC string: anything else is exit 2
# before measuring (without --from or --db it would measure the host).
expect_status 2 "recommend --check GARBAGE" -- timeout 60 "$P" recommend --target-ms 250 --check GARBAGE
expect_stderr "--check: named" "pwtune recommend: --check must be an Argon2 PHC string"
expect_stderr "--check: what was given" "not GARBAGE"
before "recommend --check"
[ ! -s "$TMP/out" ] && ok "recommend --check GARBAGE: no answer printed" || bad "an answer was printed"
expect_status 2 "recommend --format yaml" -- timeout 60 "$P" recommend --target-ms 250 --format yaml
expect_stderr "--format: named" "pwtune recommend: --format must be table, json, phc (the PHC prefix alone) or env"
# A file bench did not write is never replaced (the output named by
# mistake): refused before measuring, exit 2, left as it was. Its own
# files it may write again.
W="$TMP/own"
mkdir -p "$W"
echo "my notes" >"$W/notes.txt"
expect_status 2 "bench --csv on someone's file" -- timeout 60 "$P" bench --m 8MiB --t 1 \
	--backend libsodium --repeats 1 --csv "$W/notes.txt" --no-json -q
expect_stderr "... said why" "notes.txt exists and is not a pwtune bench CSV file: refused, left as it is"
[ "$(cat "$W/notes.txt")" = "my notes" ] && ok "... and left it as it was" || bad "notes.txt changed"
echo '{"name": "not a report"}' >"$W/other.json"
expect_status 2 "bench --json on another program's JSON" -- timeout 60 "$P" bench --m 8MiB \
	--t 1 --backend libsodium --repeats 1 --json "$W/other.json" -q
grep -q '"not a report"' "$W/other.json" && ok "... left as it was" || bad "other.json changed"
mkfifo "$W/fifo"
expect_status 2 "bench --csv on a FIFO (refused, not waited on)" -- timeout 20 "$P" bench \
	--m 8MiB --t 1 --backend libsodium --repeats 1 --csv "$W/fifo" --no-json -q
ln -s "$W/nowhere" "$W/link.json"
expect_status 2 "bench --json on a dangling link" -- timeout 60 "$P" bench --m 8MiB --t 1 \
	--backend libsodium --repeats 1 --json "$W/link.json" -q
[ ! -e "$W/nowhere" ] && ok "... its target was not created" || bad "the link's target was created"
expect_status 0 "bench writes its JSON and CSV" -- timeout 60 "$P" bench --m 8MiB --t 1 \
	--backend libsodium --repeats 1 --json "$W/r.json" --csv "$W/r.csv" -q
expect_status 0 "... and replaces its own files" -- timeout 60 "$P" bench --m 8MiB --t 1 \
	--backend libsodium --repeats 1 --json "$W/r.json" --csv "$W/r.csv" -q
[ "$(ls "$W" | grep -c '\.XXXXXX\|r\.json\.\|r\.csv\.')" = 0 ] &&
	ok "... leaving no temporary file" || bad "a temporary file was left: $(ls "$W")"
finish
