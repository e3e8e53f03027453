#!/usr/bin/env bash
# pwtune db: list, export, import and check a store; export → import →
# export gives the same document; bad usage and bad files are refused.
. "$(dirname "$0")/lib.sh"
expect_status 0 "bench --db" -- "$PWTUNE" bench --m 2MiB,4MiB --t 1 --backend libsodium \
	--repeats 2 --db "$TMP/a.db" --no-json -q
expect_status 0 "list" -- "$PWTUNE" db list --db "$TMP/a.db"
expect_stdout "list: the run" "custom"
expect_stdout "list: done 2/2" "2/2"
expect_status 0 "export" -- "$PWTUNE" db export --db "$TMP/a.db"
cp "$TMP/out" "$TMP/a.json"
expect_status 0 "import into a new store" -- "$PWTUNE" db import --db "$TMP/b.db" "$TMP/a.json"
expect_stdout "import: says what" "as run 1"
PWTUNE_DB="$TMP/b.db" "$PWTUNE" db export --run 1 >"$TMP/b.json"
python3 -c "import json,sys; a=json.load(open('$TMP/a.json')); b=json.load(open('$TMP/b.json')); sys.exit(a != b)" \
	&& ok "export → import → export: the same document" || bad "round trip differs"
expect_status 0 "check" -- "$PWTUNE" db check --db "$TMP/b.db"
expect_stdout "check: ok" "ok"
printf '{"schema": "pwtune-bench/1", "created": "x", "profile": "x", "host": {}, "points": []}' >"$TMP/bad.json"
expect_status 2 "import a file without host id" -- "$PWTUNE" db import --db "$TMP/b.db" "$TMP/bad.json"
expect_stderr "bad file: named" "host_id must be a string"
printf '{"a": 1, "a": 2}' >"$TMP/dup.json"
expect_status 2 "import duplicate keys" -- "$PWTUNE" db import --db "$TMP/b.db" "$TMP/dup.json"
expect_status 1 "export a run that does not exist" -- "$PWTUNE" db export --db "$TMP/b.db" --run 9
expect_stderr "no run 9: named" "no run 9"
expect_status 3 "list a store that does not exist" -- "$PWTUNE" db list --db "$TMP/none.db"
[ ! -e "$TMP/none.db" ] && ok "a missing store is not created" || bad "store created"

# D0: only an SQLite file may be a store. Any other file named as one is
# refused and left as it is, by every command; a corrupt store is moved
# aside only by a command that writes, never by check.
no_aside() { # NAME DIR: no *.corrupt-* appeared in DIR
	if ls "$2" | grep -q 'corrupt-'; then bad "$1: $(ls "$2" | grep corrupt- | head -1)"; else ok "$1"; fi
}
mkdir "$TMP/d0"
echo hello >"$TMP/d0/notes.txt"
cp "$TMP/d0/notes.txt" "$TMP/d0/notes.copy"
for verb in check list export; do
	expect_status 2 "db $verb on a text file: refused" -- "$PWTUNE" db $verb --db "$TMP/d0/notes.txt"
	expect_stderr "db $verb on a text file: named" "$TMP/d0/notes.txt: not an SQLite database"
done
expect_status 2 "db import into a text file: refused" -- "$PWTUNE" db import --db "$TMP/d0/notes.txt" "$TMP/a.json"
# recommend and bench name a store too: the same exit status 2 (a file
# named by mistake), before anything is measured.
expect_status 2 "recommend --db a text file: refused" -- "$PWTUNE" recommend --target-ms 250 --db "$TMP/d0/notes.txt"
expect_stderr "recommend --db a text file: named" "$TMP/d0/notes.txt: not an SQLite database"
expect_status 2 "recommend --scope fleet --db a text file: refused" -- "$PWTUNE" recommend --target-ms 250 --scope fleet --db "$TMP/d0/notes.txt"
expect_status 2 "bench --db a text file: refused" -- "$PWTUNE" bench --m 2MiB --t 1 --repeats 2 --no-json -q --db "$TMP/d0/notes.txt"
expect_stderr "bench --db a text file: named" "$TMP/d0/notes.txt: not an SQLite database"
cmp -s "$TMP/d0/notes.txt" "$TMP/d0/notes.copy" && ok "the text file is unchanged" || bad "the text file changed"
no_aside "no text file moved aside" "$TMP/d0"
cp "$TMP/a.json" "$TMP/d0/results.json"
expect_status 2 "import with its arguments swapped: refused" -- "$PWTUNE" db import --db "$TMP/d0/results.json" "$TMP/d0/results.json"
expect_stderr "swapped: the file named" "$TMP/d0/results.json: not an SQLite database"
cmp -s "$TMP/d0/results.json" "$TMP/a.json" && ok "swapped: the JSON is unchanged" || bad "swapped: the JSON changed"
no_aside "swapped: nothing moved aside" "$TMP/d0"
# A corrupt SQLite store: check says so (exit 1) and leaves it alone.
cp "$TMP/b.db" "$TMP/d0/c.db"
printf 'A' | dd of="$TMP/d0/c.db" bs=1 seek=21 conv=notrunc 2>/dev/null
cp "$TMP/d0/c.db" "$TMP/d0/c.copy"
expect_status 1 "check of a corrupt store: exit 1" -- "$PWTUNE" db check --db "$TMP/d0/c.db"
expect_stderr "check of a corrupt store: says corrupt" "the file is corrupt"
cmp -s "$TMP/d0/c.db" "$TMP/d0/c.copy" && ok "check: the corrupt store is unchanged" || bad "check: the corrupt store changed"
no_aside "check: nothing moved aside" "$TMP/d0"
# A failed import leaves no new store behind.
ls "$TMP/d0" >"$TMP/d0.before"
expect_status 2 "import of a bad file into a new store" -- "$PWTUNE" db import --db "$TMP/d0/new.db" "$TMP/bad.json"
expect_status 3 "import of a missing file into a new store" -- "$PWTUNE" db import --db "$TMP/d0/new.db" "$TMP/d0/none.json"
ls "$TMP/d0" | cmp -s - "$TMP/d0.before" && ok "failed imports: no new file" || bad "failed imports left: $(ls "$TMP/d0" | tr '\n' ' ')"
# A run with points skipped because their backend cannot compute them
# (libsodium at p = 2) is read back whole: exported, and answered from.
expect_status 0 "bench --p 1,2 --backend libsodium --db" -- "$PWTUNE" bench --m 2MiB,4MiB \
	--t 1 --p 1,2 --backend libsodium --repeats 2 --db "$TMP/p2.db" --no-json -q
expect_status 0 "export a run with skipped p = 2 points" -- "$PWTUNE" db export --db "$TMP/p2.db"
expect_stdout "... the skipped points with it" "libsodium computes p = 1 only"
expect_status 0 "recommend --db from that run" -- "$PWTUNE" recommend --db "$TMP/p2.db" --target-ms 5 --floor none
expect_status 2 "no store named" -- env -u PWTUNE_DB "$PWTUNE" db list
expect_status 2 "unknown verb" -- "$PWTUNE" db frob --db "$TMP/b.db"
finish
