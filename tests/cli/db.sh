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
expect_status 1 "list a store that does not exist" -- "$PWTUNE" db list --db "$TMP/none.db"
[ ! -e "$TMP/none.db" ] && ok "a missing store is not created" || bad "store created"
expect_status 2 "no store named" -- env -u PWTUNE_DB "$PWTUNE" db list
expect_status 2 "unknown verb" -- "$PWTUNE" db frob --db "$TMP/b.db"
finish
