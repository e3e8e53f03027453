#!/usr/bin/env bash
# recommend --format: phc prints the PHC prefix alone, env one line of
# shell assignments that eval sets, json the API's object (--json too),
# table the text; from a saved run (--from) and from a store (--db), so
# that nothing long is measured.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
RUN=${RUN:?RUN must name tests/data/quick-run.json}
P=$PWTUNE

"$P" recommend --target-ms 250 --from "$RUN" --json >"$TMP/ref.json" || bad "the reference answer"
read -r m t p prefix < <(python3 -c "import json,sys; a=json.load(open(sys.argv[1])); print(a['m_kib'], a['t'], a['p'], a['phc_prefix'])" "$TMP/ref.json")

expect_status 0 "phc" -- "$P" recommend --target-ms 250 --from "$RUN" --format phc
[ "$(cat "$TMP/out")" = "$prefix" ] && ok "phc: the prefix alone, one line" || bad "phc: '$(cat "$TMP/out")', wanted '$prefix'"
grep -qx '\$argon2id\$v=19\$m=[0-9]*,t=[0-9]*,p=[0-9]*' "$TMP/out" && ok "phc: its shape" || bad "phc: shape"

expect_status 0 "env" -- "$P" recommend --target-ms 250 --from "$RUN" --format env
[ "$(cat "$TMP/out")" = "ARGON2_M_KIB=$m ARGON2_T=$t ARGON2_P=$p" ] && ok "env: one line" || bad "env: '$(cat "$TMP/out")'"
unset ARGON2_M_KIB ARGON2_T ARGON2_P
eval "$("$P" recommend --target-ms 250 --from "$RUN" --format env)"
[ "${ARGON2_M_KIB:-}" = "$m" ] && [ "${ARGON2_T:-}" = "$t" ] && [ "${ARGON2_P:-}" = "$p" ] &&
	ok "eval sets ARGON2_M_KIB=$m ARGON2_T=$t ARGON2_P=$p" || bad "eval: '${ARGON2_M_KIB:-}' '${ARGON2_T:-}' '${ARGON2_P:-}'"
out=$(sh -c 'eval "$1"; echo "$ARGON2_M_KIB/$ARGON2_T/$ARGON2_P"' sh "$("$P" recommend --target-ms 250 --from "$RUN" --format env)")
[ "$out" = "$m/$t/$p" ] && ok "env: POSIX sh evaluates it too" || bad "sh: $out"

expect_status 0 "json" -- "$P" recommend --target-ms 250 --from "$RUN" --format json
cmp -s "$TMP/out" "$TMP/ref.json" && ok "json: the same as --json" || bad "json differs from --json"
expect_status 0 "table" -- "$P" recommend --target-ms 250 --from "$RUN" --format table
expect_stdout "table: the text" "PHC prefix:  $prefix"

# A target that cannot be met: the closest answer, exit 1, why on stderr.
expect_status 1 "phc, target missed" -- "$P" recommend --target-ms 1 --from "$RUN" --format phc
[ "$(wc -l <"$TMP/out")" -eq 1 ] && ok "phc, target missed: still one line" || bad "phc: $(cat "$TMP/out")"
expect_stderr "phc, target missed: why" "cannot be met"

# From a store: the saved run as this host's (its host block from one
# small point measured here), imported.
"$P" bench --m 1MiB --t 1 --backend libsodium --repeats 1 -q --json "$TMP/here.json" >/dev/null 2>&1 ||
	bad "one point here"
python3 - "$RUN" "$TMP/here.json" "$TMP/seed.json" <<'PY' || bad "seed"
import json, sys
run, here = (json.load(open(f)) for f in sys.argv[1:3])
run["host"] = here["host"]
json.dump(run, open(sys.argv[3], "w"))
PY
"$P" db import --db "$TMP/s.db" "$TMP/seed.json" >/dev/null 2>&1 || bad "seed the store"
expect_status 0 "env from a store" -- "$P" recommend --target-ms 250 --db "$TMP/s.db" --format env
[ "$(cat "$TMP/out")" = "ARGON2_M_KIB=$m ARGON2_T=$t ARGON2_P=$p" ] && ok "env from a store: the same line" || bad "env from a store: $(cat "$TMP/out")"
[ ! -s "$TMP/err" ] && ok "env from a store: nothing on stderr" || bad "env from a store: $(cat "$TMP/err")"

# A store with no run of this host: nothing to answer from, exit 3.
: >"$TMP/empty.db"
expect_status 3 "a store without a run" -- "$P" recommend --target-ms 250 --db "$TMP/empty.db" --format env
[ ! -s "$TMP/out" ] && ok "a store without a run: nothing printed" || bad "printed: $(cat "$TMP/out")"

# What the terse forms cannot carry is refused.
expect_status 2 "phc with --presets" -- "$P" recommend --target-ms 250 --from "$RUN" --format phc --presets
expect_stderr "phc with --presets: named" "--format phc and env print the parameters alone"
finish
