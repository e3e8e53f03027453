#!/usr/bin/env bash
# S13: the API scenarios as an unprivileged user. The binaries and the
# test scripts are copied where nobody can read them; each scenario then
# runs under setpriv as nobody, pwtuned and pwtune too. Needs root to
# switch users (77 otherwise).
. "$(dirname "$0")/../cli/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: switching to nobody needs root"; exit 77; }
SCENARIOS=${SCENARIOS:-basic bad_input auth runs static lifecycle}
base=$(mktemp -d)
trap 'rm -rf "$base"; rm -rf "$TMP"' EXIT
chmod 755 "$base"
mkdir -p "$base/tests"
cp -r "$SRC/tests/api" "$SRC/tests/cli" "$SRC/tests/data" "$base/tests/"
cp "$PWTUNE" "$PWTUNED" "$base/"
cp -r "$SRC/systemd" "$SRC/web" "$base/"
chmod -R a+rX "$base"
for s in $SCENARIOS; do
	out=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -i PATH=/usr/bin:/bin HOME=/nonexistent TMPDIR=/tmp \
		PWTUNE="$base/pwtune" PWTUNED="$base/pwtuned" SRC="$base" \
		SANITIZED="${SANITIZED:-}" bash "$base/tests/api/$s.sh" 2>&1)
	rc=$?
	summary=$(tail -1 <<<"$out")
	if [ $rc -eq 0 ]; then
		ok "api.$s as nobody: $summary"
	else
		bad "api.$s as nobody (exit $rc): $summary"
		grep -E -A4 "^FAILED" <<<"$out" | head -30 | sed "s/^/    /"
	fi
done
finish
