#!/usr/bin/env bash
# F2: SIGKILL in the middle of a schema migration. A version-1 store (the
# newest schema without what versions 2 and 3 add) with 100 000 runs, so the
# migration takes a while; pwtune db import opens it (and so migrates it:
# db check only reads, and leaves it at its version) and is killed at a
# random moment of that, KILLS times. After each kill:
# user_version is 1 with no v2 index, 2 with all of them and no v3 table,
# 3 with all of them and the v3 table, 4 with the probes table too, or 5
# with the probes' shares column; the
# file passes integrity_check;
# the next open migrates it to the newest version.
. "$(dirname "$0")/../cli/lib.sh"
KILLS=${KILLS:-20}
indices() { sqlite3 "$1" "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN ('runs_host', 'runs_status', 'runs_fingerprint', 'models_run', 'verifications_run')"; }
# The objects of version 3: the observations table and the hosts' group.
v3() { sqlite3 "$1" "SELECT (SELECT count(*) FROM sqlite_master WHERE name = 'observations') + (SELECT count(*) FROM pragma_table_info('hosts') WHERE name = 'host_group')"; }
# The objects of version 4: the probes table and the observations' source.
v4() { sqlite3 "$1" "SELECT (SELECT count(*) FROM sqlite_master WHERE name = 'probes') + (SELECT count(*) FROM pragma_table_info('observations') WHERE name = 'source')"; }
# The object of version 5: the probes' shares column.
v5() { sqlite3 "$1" "SELECT count(*) FROM pragma_table_info('probes') WHERE name = 'shares'"; }
NEWEST=5
"$PWTUNE" bench --m 1MiB --t 1 --backend libsodium --repeats 1 --no-json -q \
	--db "$TMP/v2.db" >/dev/null 2>&1 || { echo "FAIL: cannot make a store"; exit 1; }
"$PWTUNE" db export --db "$TMP/v2.db" >"$TMP/run.json" 2>/dev/null || { echo "FAIL: cannot export"; exit 1; }
sqlite3 "$TMP/v2.db" "DROP TABLE probes; DROP TABLE observations; DROP INDEX hosts_group;
	ALTER TABLE hosts DROP COLUMN host_group;
	DROP INDEX runs_host; DROP INDEX runs_status;
	DROP INDEX runs_fingerprint; DROP INDEX models_run;
	DROP INDEX verifications_run; PRAGMA user_version = 1;
	WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000)
	INSERT INTO runs (host_id, fingerprint, host_facts, profile, trigger, status, created)
	SELECT host_id, fingerprint, host_facts, profile, 'import', 'done', created
	FROM runs, c WHERE runs.id = 1;" || { echo "FAIL: cannot make a v1 store"; exit 1; }
mv "$TMP/v2.db" "$TMP/v1.db"
[ "$(sqlite3 "$TMP/v1.db" 'PRAGMA user_version')" = 1 ] && [ "$(indices "$TMP/v1.db")" = 0 ] &&
	[ "$(v3 "$TMP/v1.db")" = 0 ] &&
	ok "a version-1 store with 100001 runs" || bad "the v1 store"

# db check reads an older store as it is: ok, and still version 1.
cp "$TMP/v1.db" "$TMP/t.db"
"$PWTUNE" db check --db "$TMP/t.db" >"$TMP/out" 2>&1 && [ "$(cat "$TMP/out")" = ok ] &&
	[ "$(sqlite3 "$TMP/t.db" 'PRAGMA user_version')" = 1 ] && cmp -s "$TMP/t.db" "$TMP/v1.db" &&
	ok "db check of a version-1 store: ok, left at version 1" || bad "db check of the v1 store: $(cat "$TMP/out")"

# How long the migration takes here.
t0=$(date +%s%N)
"$PWTUNE" db import --db "$TMP/t.db" "$TMP/run.json" >/dev/null 2>&1
T=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$(sqlite3 "$TMP/t.db" 'PRAGMA user_version')" = $NEWEST ] && [ "$(indices "$TMP/t.db")" = 5 ] &&
	[ "$(v3 "$TMP/t.db")" = 2 ] && [ "$(v4 "$TMP/t.db")" = 2 ] && [ "$(v5 "$TMP/t.db")" = 1 ] &&
	ok "the migration alone: version $NEWEST, five indices, the v3, v4 and v5 objects, $T ms" || bad "migration"

old=0 mid=0 new=0 wrong=0 corrupt=0 reopen=0
for i in $(seq "$KILLS"); do
	cp "$TMP/v1.db" "$TMP/k.db"
	rm -f "$TMP/k.db-wal" "$TMP/k.db-shm"
	"$PWTUNE" db import --db "$TMP/k.db" "$TMP/run.json" >/dev/null 2>&1 &
	p=$!
	sleep "$(awk -v s="$RANDOM" -v t="$T" 'BEGIN { srand(s); printf "%.3f", rand() * t / 1000 }')"
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	v=$(sqlite3 "$TMP/k.db" 'PRAGMA user_version')
	n=$(indices "$TMP/k.db")
	o=$(v3 "$TMP/k.db")$(v4 "$TMP/k.db")$(v5 "$TMP/k.db")
	case "$v:$n:$o" in
	1:0:000) old=$((old + 1)) ;;
	2:5:000|3:5:200|4:5:220) mid=$((mid + 1)) ;;
	5:5:221) new=$((new + 1)) ;;
	*) wrong=$((wrong + 1)); echo "  kill $i: user_version $v with $n indices, $o v3, v4 and v5 objects" ;;
	esac
	[ "$(sqlite3 "$TMP/k.db" 'PRAGMA integrity_check')" = ok ] || corrupt=$((corrupt + 1))
	"$PWTUNE" db import --db "$TMP/k.db" "$TMP/run.json" >/dev/null 2>&1 &&
		[ "$(sqlite3 "$TMP/k.db" 'PRAGMA user_version')" = $NEWEST ] || reopen=$((reopen + 1))
done
echo "  $KILLS kills: $old left at version 1, $mid at version 2 to 4, $new at version $NEWEST"
[ $wrong -eq 0 ] && ok "the schema matches user_version after every kill" || bad "$wrong mismatches"
[ $corrupt -eq 0 ] && ok "integrity_check ok after every kill" || bad "$corrupt corrupt"
[ $reopen -eq 0 ] && ok "the next open migrates every time" || bad "$reopen failed to migrate after"
[ $old -gt 0 ] && ok "some kills landed inside the migration ($old)" || bad "no kill landed inside the migration"
finish
