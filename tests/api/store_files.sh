#!/usr/bin/env bash
# The files pwtuned makes and the files it is given (D0, D8e): a file that
# is not an SQLite database named as the store is refused and left as it
# is; started under umask 000, the state directory is 0700 and the store,
# its -wal and -shm and the token are 0600; so is a store made after a
# corrupt one was moved aside, and one the command line makes.
. "$(dirname "$0")/lib.sh"

# D0: a text file as the store: exit 1 naming it, the file unchanged,
# nothing moved aside, no -wal or -shm beside it.
mkdir -p "$TMP/d0"
echo hello >"$TMP/d0/notes.txt"
cp "$TMP/d0/notes.txt" "$TMP/notes.copy"
env PWTUNED_STARTUP_PROFILE=none PWTUNED_CHECK_BUDGET=0 timeout 20 "$PWTUNED" --state-dir "$VAR" \
	--listen 127.0.0.1:0 --db "$TMP/d0/notes.txt" >"$TMP/out" 2>&1
rc=$?
[ $rc = 1 ] && ok "a text file as the store: exit 1" || bad "a text file as the store: exit $rc"
grep -qF "$TMP/d0/notes.txt: not an SQLite database" "$TMP/out" && ok "the file is named" ||
	{ bad "the file is not named"; head -5 "$TMP/out"; }
cmp -s "$TMP/d0/notes.txt" "$TMP/notes.copy" && ok "the text file is unchanged" || bad "the text file changed"
[ "$(ls "$TMP/d0")" = notes.txt ] && ok "nothing beside it" || bad "beside it: $(ls "$TMP/d0" | tr '\n' ' ')"

# D8e: under umask 000, the modes are the daemon's own.
VAR="$TMP/fresh"
umask 000
start_daemon
umask 022
req GET /v1/runs	# an API connection to the store: -wal and -shm exist
mode() { stat -c %a "$1" 2>/dev/null || echo none; }
for f in "$VAR:700" "$VAR/pwtune.db:600" "$VAR/pwtune.db-wal:600" \
	"$VAR/pwtune.db-shm:600" "$VAR/token:600"; do
	m=$(mode "${f%:*}")
	[ "$m" = "${f##*:}" ] && ok "umask 000: ${f%:*} is $m" ||
		bad "umask 000: ${f%:*} is $m, wanted ${f##*:}"
done
stop_daemon

# A corrupt store moved aside: the new one is 0600 too, under umask 022.
VAR="$TMP/corrupt"
mkdir -p "$VAR"
chmod 700 "$VAR"
"$PWTUNE" bench --m 8MiB --t 1 --backend libsodium --repeats 2 \
	--db "$VAR/pwtune.db" --no-json -q >/dev/null 2>&1 || bad "cannot seed"
printf 'garbage page %.0s' $(seq 400) | dd of="$VAR/pwtune.db" bs=1 seek=1024 \
	conv=notrunc 2>/dev/null
start_daemon
ls "$VAR"/pwtune.db.corrupt-* >/dev/null 2>&1 && ok "the corrupt store was moved aside" ||
	bad "the corrupt store was not moved aside: $(ls "$VAR" | tr '\n' ' ')"
m=$(mode "$VAR/pwtune.db")
[ "$m" = 600 ] && ok "the store made after it is 600" || bad "the store made after it is $m"
stop_daemon

# A store the command line makes: 0600 under umask 022.
"$PWTUNE" bench --m 8MiB --t 1 --backend libsodium --repeats 2 \
	--db "$TMP/cli.db" --no-json -q >/dev/null 2>&1 || bad "pwtune bench --db"
m=$(mode "$TMP/cli.db")
[ "$m" = 600 ] && ok "pwtune bench --db makes a store 600" || bad "pwtune bench --db made a store $m"
finish
