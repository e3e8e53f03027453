#!/usr/bin/env bash
# A file named by mistake is never changed, and never waited on: FIFOs
# nothing writes to, given as --from, --show, an import file,
# --secret-file or pwtuned's -c, are refused (a pipe with a writer is
# read); an empty secret file, empty names, :memory:, one
# file named by two outputs, a read-only result file and a directory as
# a configuration are refused before anything is measured or written.
. "$(dirname "$0")/lib.sh"
P=$PWTUNE
D=${PWTUNED:-$(dirname "$P")/../daemon/pwtuned}
cd "$TMP" || exit 1
mkfifo "$TMP/fifo"
PHC='$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$NREZw6Tfm0jwGpPVqhPpuEh4DBE8r3lSM3nh1Rd5AbE'

# A FIFO nothing writes to: refused within 5 s (timeout 10 would be exit
# 124), named; the command line waits 2 s for a writer (a pipe of
# <(command) has one), pwtuned none.
fifo() {	# fifo NAME WANT -- command...
	local name=$1 want=$2 t0 ms
	shift 3
	t0=$(date +%s%N)
	expect_status "$want" "$name: refused" -- timeout 10 "$@"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ $ms -lt 5000 ] && ok "$name: without waiting on it ($ms ms)" || bad "$name: took $ms ms"
	expect_stderr "$name: says it is not a regular file" "$TMP/fifo: "
	expect_stderr "$name: says why" "not a regular file"
}
fifo "recommend --from FIFO" 3 -- "$P" recommend --target-ms 100 --from "$TMP/fifo"
fifo "bench --show FIFO" 3 -- "$P" bench --show "$TMP/fifo"
fifo "db import FIFO" 3 -- "$P" db import --db "$TMP/s.db" "$TMP/fifo"
[ ! -e "$TMP/s.db" ] && ok "db import FIFO: no store made" || bad "db import FIFO: a store was made"
fifo "hash --secret-file FIFO" 3 -- sh -c "printf pw | '$P' hash somesalt1 -m 6 --secret-file '$TMP/fifo'"
fifo "verify --secret-file FIFO" 3 -- sh -c "printf pw | '$P' verify --secret-file '$TMP/fifo' '$PHC'"
if [ -x "$D" ]; then
	fifo "pwtuned -n -c FIFO" 1 -- "$D" -n -c "$TMP/fifo"
	mkdir "$TMP/conf.d"
	expect_status 1 "pwtuned -n -c DIRECTORY: refused" -- "$D" -n -c "$TMP/conf.d"
	expect_stderr "pwtuned -c DIRECTORY: not a configuration" "$TMP/conf.d: not a regular file: not a configuration"
	printf 'st\001\033[31mate = 1\n' >"$TMP/bin.conf"
	expect_status 1 "pwtuned -n -c with control bytes in a key" -- "$D" -n -c "$TMP/bin.conf"
	expect_stderr "the key shown without its control bytes" "unknown key st??[31mate"
	# -n reads a store as start-up does: another program's is refused.
	sqlite3 "$TMP/other.db" 'CREATE TABLE runs (a); PRAGMA user_version = 1;'
	sum=$(sha256sum <"$TMP/other.db")
	expect_status 1 "pwtuned -n --db another program's database: refused" -- \
		"$D" -n --state-dir "$TMP/state" --db "$TMP/other.db"
	expect_stderr "pwtuned -n: not a pwtune store" "$TMP/other.db: an SQLite database of another program: not a pwtune store"
	[ "$(sha256sum <"$TMP/other.db")" = "$sum" ] && [ "$(ls "$TMP" | grep -c '^other.db')" = 1 ] &&
		ok "pwtuned -n: the database unchanged, nothing beside it" || bad "pwtuned -n changed the database"
fi

# A pipe with a writer is read: <(command) as the secret file.
printf 'a secret' >"$TMP/secret"
a=$(printf pw | "$P" hash somesalt1 -m 6 -e --secret-file "$TMP/secret")
b=$(printf pw | "$P" hash somesalt1 -m 6 -e --secret-file <(printf 'a secret'))
[ -n "$a" ] && [ "$a" = "$b" ] && ok "--secret-file <(command): read, the same hash" || bad "--secret-file <(command): '$b' against '$a'"

# An empty secret file: a secret of no bytes is no secret.
: >"$TMP/empty"
expect_status 2 "hash --secret-file EMPTY: refused" -- sh -c "printf pw | '$P' hash somesalt1 -m 6 --secret-file '$TMP/empty'"
expect_stderr "hash: the secret file is empty" "$TMP/empty: empty (a secret has 1 to"

# db import onto a link to nothing: refused, the link left as it is.
ln -s "$TMP/nowhere.db" "$TMP/link.db"
expect_status 2 "db import onto a link to nothing: refused" -- "$P" db import --db "$TMP/link.db" "$RUN"
[ -L "$TMP/link.db" ] && [ ! -e "$TMP/nowhere.db" ] && ok "the link kept, its target not made" ||
	bad "db import onto a link to nothing: the link removed or its target made"

# Store names that keep nothing.
expect_status 2 "bench --db '': refused" -- "$P" bench --m 2MiB --t 1 --repeats 1 --no-json --db ""
expect_stderr "bench --db '': says why" "--db takes a store (a file or a postgresql:// URI), not an empty string"
expect_status 2 "bench --db :memory:: refused" -- "$P" bench --m 2MiB --t 1 --repeats 1 --no-json --db :memory:
expect_stderr "bench --db :memory:: says why" "--db :memory: keeps nothing"
expect_status 2 "db import --db :memory:: refused" -- "$P" db import --db :memory: "$RUN"
expect_status 2 "db list with PWTUNE_DB='': refused" -- env PWTUNE_DB= "$P" db list
expect_stderr "PWTUNE_DB named" "PWTUNE_DB takes a store"
expect_status 2 "bench --json '': refused before measuring" -- "$P" bench --m 2MiB --t 1 --repeats 1 --json ""
expect_stderr "bench --json '': says why" "--json takes a file name, not an empty string"
# An empty file name to read: usage (2), the option named.
expect_status 2 "recommend --from '': refused" -- "$P" recommend --target-ms 100 --from ""
expect_stderr "recommend --from '': named" "recommend: --from takes a file name, not an empty string"
expect_status 2 "bench --show '': refused" -- "$P" bench --show ""
expect_stderr "bench --show '': named" "bench: --show takes a file name, not an empty string"
expect_status 2 "db import '': refused" -- "$P" db import --db "$TMP/e.db" ""
expect_stderr "db import '': named" "db import: FILE takes a file name, not an empty string"
[ ! -e "$TMP/e.db" ] && ok "db import '': no store made" || bad "db import '': a store was made"
expect_status 2 "hash --secret-file '': refused" -- sh -c "printf pw | '$P' hash somesalt1 -m 6 --secret-file ''"
expect_stderr "hash --secret-file '': named" "hash: --secret-file takes a file name, not an empty string"
expect_status 2 "verify --secret-file '': refused" -- sh -c "printf pw | '$P' verify --secret-file '' '$PHC'"
expect_stderr "verify --secret-file '': named" "verify: --secret-file takes a file name, not an empty string"

# An empty file read as a store: none in it yet, said so (it was "ok"
# from db check, "internal error" from db list), the file left empty.
: >"$TMP/empty.db"
for c in "db check" "db list" "db export"; do
	expect_status 3 "$c of an empty file: refused" -- $P $c --db "$TMP/empty.db"
	expect_stderr "$c of an empty file: says so" "empty.db: an empty file: no store in it yet"
done
expect_status 3 "recommend --db EMPTY: refused" -- "$P" recommend --target-ms 100 --db "$TMP/empty.db"
[ ! -s "$TMP/empty.db" ] && [ "$(ls "$TMP" | grep -c '^empty.db')" = 1 ] &&
	ok "the empty file left empty, nothing beside it" || bad "the empty file was written to"

# Two outputs, one file: refused, nothing measured, nothing made.
expect_status 2 "bench --db X --json X: refused" -- "$P" bench --m 2MiB --t 1 --repeats 1 --db "$TMP/same" --json "$TMP/same"
expect_stderr "--json and --db named" "--json and --db name the same file"
[ ! -e "$TMP/same" ] && ok "--db X --json X: nothing made" || bad "--db X --json X: $TMP/same was made"
expect_status 2 "bench --json X --csv ./X: refused" -- "$P" bench --m 2MiB --t 1 --repeats 1 --json "$TMP/r.out" --csv "$TMP/./r.out"
expect_stderr "--json and --csv named" "--json and --csv name the same file"

# A result file of bench's own, made read-only: kept so, even for root.
"$P" bench --m 2MiB --t 1 --backend libsodium --repeats 1 --json "$TMP/ro.json" -q >/dev/null 2>&1 ||
	bad "cannot make a JSON report"
chmod 444 "$TMP/ro.json"
sum=$(sha256sum <"$TMP/ro.json")
expect_status 3 "bench --json READ-ONLY: refused" -- "$P" bench --m 2MiB --t 1 --backend libsodium --repeats 1 --json "$TMP/ro.json"
expect_stderr "read-only: named, mode shown" "$TMP/ro.json is read-only (mode 444): left as it is"
[ "$(sha256sum <"$TMP/ro.json")" = "$sum" ] && [ "$(stat -c %a "$TMP/ro.json")" = 444 ] &&
	ok "the read-only report is unchanged" || bad "the read-only report was changed"
finish
