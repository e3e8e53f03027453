#!/usr/bin/env bash
# The store on a full file system (a 1 MiB tmpfs) and a read-only one (a
# tmpfs remounted read-only, and a directory the user cannot write), run
# as the unprivileged user nobody. Needs root to mount: exits 77 (skipped)
# otherwise.
set -u
HELPER=${HELPER:?HELPER must name test_db_fs}
PWTUNE=${PWTUNE:?PWTUNE must name pwtune}
if [ "$(id -u)" != 0 ]; then
	echo "skipped: mounting a tmpfs needs root"
	exit 77
fi
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
base=$(mktemp -d)
chmod 755 "$base"
cleanup() {
	umount "$base/full" "$base/ro" 2>/dev/null
	rm -rf "$base"
}
trap cleanup EXIT
failed=0
mkdir "$base/full" "$base/ro" "$base/locked"

mount -t tmpfs -o size=1m,mode=0755 tmpfs "$base/full" || exit 1
chown nobody:nogroup "$base/full"
as_nobody "$HELPER" full "$base/full" || failed=1

# A store with one run, then its place made read-only two ways.
mount -t tmpfs -o size=4m,mode=0755 tmpfs "$base/ro" || exit 1
chown nobody:nogroup "$base/ro"
as_nobody "$PWTUNE" bench --m 1MiB --t 1 --backend libsodium --repeats 1 \
	--no-json -q --db "$base/ro/s.db" >/dev/null || failed=1
cp -p "$base/ro/s.db" "$base/locked/s.db"
chown root:root "$base/locked"
chmod 755 "$base/locked"
mount -o remount,ro "$base/ro" || exit 1
as_nobody "$HELPER" readonly "$base/ro" || failed=1
as_nobody "$HELPER" readonly "$base/locked" || failed=1
# The command line says the same, and exits non-zero before measuring.
out=$(as_nobody "$PWTUNE" bench --m 1MiB --t 1 --repeats 1 --no-json -q \
	--db "$base/locked/s.db" 2>&1)
rc=$?
if [ $rc -ne 3 ] || ! grep -q "cannot write in $base/locked" <<<"$out"; then
	echo "FAILED bench --db on a read-only place: exit $rc: $out"
	failed=1
else
	echo "ok     bench --db on a read-only place: $out"
fi
[ $failed -eq 0 ] && echo "fs: all passed" || echo "fs: FAILED"
exit $failed
