#!/usr/bin/env bash
# The layer check (cmake/layers.cmake): it passes on the real tree, and on
# a copy where api/ includes a daemon header, engine/ a db header and db/
# an api header it fails, naming each include. The build runs the same
# check (target layers), so a tree like the broken one does not build.
# ROOT (the source tree) and CMAKE are set by ctest.
: "${ROOT:?ROOT must name the source tree}"
CMAKE=${CMAKE:-cmake}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failed=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }

if "$CMAKE" -DROOT="$ROOT" -P "$ROOT/cmake/layers.cmake" >"$TMP/real.log" 2>&1; then
	ok "the real tree: every include follows the layers"
else
	bad "the real tree breaks the layers:"; cat "$TMP/real.log"
fi

# A small tree: one header per layer, and the layers' sources copied.
for d in engine db api daemon cli; do
	mkdir -p "$TMP/tree/$d"
	cp "$ROOT/$d"/*.h "$TMP/tree/$d/" 2>/dev/null
done
cp "$ROOT/api/health.c" "$TMP/tree/api/"
cp "$ROOT/db/db.c" "$TMP/tree/db/"
cp "$ROOT/engine/stats.c" "$TMP/tree/engine/"
if "$CMAKE" -DROOT="$TMP/tree" -P "$ROOT/cmake/layers.cmake" >"$TMP/copy.log" 2>&1; then
	ok "the copied tree passes before it is broken"
else
	bad "the copied tree fails already:"; cat "$TMP/copy.log"
fi
printf '#include "daemon.h"\n' >>"$TMP/tree/api/health.c"
printf '#include "db.h"\n' >>"$TMP/tree/engine/stats.c"
printf '#include "api.h"\n' >>"$TMP/tree/db/db.c"
if "$CMAKE" -DROOT="$TMP/tree" -P "$ROOT/cmake/layers.cmake" >"$TMP/broken.log" 2>&1; then
	bad "a tree that breaks the layers passes"
else
	ok "a tree that breaks the layers fails"
fi
for want in "api/health.c: includes daemon.h" "engine/stats.c: includes db.h" \
	"db/db.c: includes api.h"; do
	if tr -s ' \n' ' ' <"$TMP/broken.log" | grep -qF "$want"; then
		ok "named: $want"
	else
		bad "not named: $want"; cat "$TMP/broken.log"
	fi
done
[ "$failed" -eq 0 ] && echo "all passed" || echo "$failed failed"
[ "$failed" -eq 0 ]
