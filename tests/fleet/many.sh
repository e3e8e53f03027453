# tests/fleet/many.sh: many hosts in one SQLite store, sourced after
# tests/api/lib.sh.
#
#   import_hosts N   N runs of distinct made-up hosts (hosts.py, from the
#                    quick run of tests/data) imported into $VAR/pwtune.db
import_hosts() {
	local n=$1 i
	mkdir -p "$TMP/runs"
	python3 "$(dirname "$0")/hosts.py" "$(dirname "$0")/../data/quick-run.json" \
		"$n" "$TMP/runs" || { bad "hosts.py"; finish; exit 1; }
	for i in $(seq 0 $((n - 1))); do
		"$PWTUNE" db import --db "$VAR/pwtune.db" "$TMP/runs/host-$i.json" \
			>/dev/null 2>"$TMP/import.err" ||
			{ bad "import host $i"; cat "$TMP/import.err"; finish; exit 1; }
	done
	ok "$n hosts imported"
}
