#!/bin/bash
# daemon.check: pwtuned -n refuses what start-up refuses, with the same
# one-line message and a non-zero status, and creates nothing; a good
# configuration passes and then starts. pwtuned --version and -V.
. "$(dirname "$0")/../cli/lib.sh" || exit 1
: "${PWTUNED:?PWTUNED must name the pwtuned binary}"
PID=""
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT

# The version, and the libraries'.
for f in --version -V; do
	expect_status 0 "pwtuned $f: exit 0" -- "$PWTUNED" "$f"
	grep -qE '^pwtuned [0-9]+\.[0-9]+\.[0-9]+ \(libsodium [^,]+, libargon2 [^,]+, libmicrohttpd [^)]+\)$' "$TMP/out" &&
		ok "pwtuned $f: $(cat "$TMP/out")" || bad "pwtuned $f printed: $(cat "$TMP/out")"
done
pwtune_v=$("$PWTUNE" --version | awk '{print $2}')
[ "$(awk '{print $2}' "$TMP/out")" = "$pwtune_v" ] && ok "pwtuned and pwtune: the same version" ||
	bad "pwtuned $(awk '{print $2}' "$TMP/out"), pwtune $pwtune_v"
grep -q -- '--version' <("$PWTUNED" --help) && ok "--help lists --version" || bad "--help: no --version"

# conf NAME LINES...: a configuration in $TMP/NAME.conf (LINES from line
# 5 on: a key again overrides), its state under $TMP/NAME (not made: -n
# must not make it).
conf() {
	local name=$1
	shift
	{
		echo "state_dir = $TMP/$name"
		echo "startup_profile = none"
		echo "probes = none"
		echo "listen = 127.0.0.1:0"
		printf '%s\n' "$@"
	} >"$TMP/$name.conf"
}

# refused NAME TEXT: -n and start-up both exit non-zero with one line
# naming TEXT, the same line; -n made nothing.
refused() {
	local name=$1 text=$2 n s
	expect_status 1 "$name: -n refuses" -- "$PWTUNED" -n -c "$TMP/$name.conf"
	n=$(cat "$TMP/err")
	[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qF -- "$text" "$TMP/err" &&
		ok "$name: -n says $n" || bad "$name: -n said: $n (wanted one line with $text)"
	[ ! -e "$TMP/$name" ] && ok "$name: -n made nothing" ||
		bad "$name: -n made $TMP/$name"
	timeout 20 "$PWTUNED" -c "$TMP/$name.conf" >"$TMP/out" 2>"$TMP/err"
	s=$?
	[ "$s" -ne 0 ] && [ "$s" -ne 124 ] && ok "$name: start-up refuses too (exit $s)" ||
		bad "$name: start-up exit $s"
	grep -qxF -- "$n" "$TMP/err" && ok "$name: start-up says the same" ||
		bad "$name: start-up said: $(head -3 "$TMP/err")"
}

# The listen address: a host name passes the syntax, but not bind().
conf hostname "listen = localhost:18431"
refused hostname "listen"
grep -qF "$TMP/hostname.conf:5:" <("$PWTUNED" -n -c "$TMP/hostname.conf" 2>&1) &&
	ok "hostname: the file and line named" || bad "hostname: no file:line"

# A state directory whose parent is missing (mkdir fails).
conf nodir
sed -i "s|^state_dir = .*|state_dir = $TMP/missing/state|" "$TMP/nodir.conf"
refused nodir "state directory $TMP/missing/state"

# The store's path is a directory.
mkdir -p "$TMP/storedir.d"
conf storedir "store = $TMP/storedir.d"
refused storedir "store: $TMP/storedir.d: not a regular file"

# A file that is not a store.
echo "not a database" >"$TMP/notes.txt"
conf notastore "store = $TMP/notes.txt"
refused notastore "not an SQLite database"

# A token file others can read; one too short.
printf '0123456789abcdef0123\n' >"$TMP/token.open"
chmod 644 "$TMP/token.open"
conf tokenmode "token_file = $TMP/token.open"
refused tokenmode "can be read by others"
printf 'short\n' >"$TMP/token.short"
chmod 600 "$TMP/token.short"
conf tokenshort "token_file = $TMP/token.short"
refused tokenshort "shorter than 16 characters"

# A web root that is not there; one without index.html.
conf webroot "web_root = $TMP/no-web"
refused webroot "web_root $TMP/no-web"
mkdir -p "$TMP/empty-web"
conf webempty "web_root = $TMP/empty-web"
refused webempty "web_root $TMP/empty-web has no readable index.html"

# A good configuration passes -n, makes nothing, then starts.
conf good "web_root = $SRC/web"
expect_status 0 "good: -n passes" -- "$PWTUNED" -n -c "$TMP/good.conf"
grep -qx "configuration OK" "$TMP/out" && ok "good: configuration OK" || bad "good: printed $(cat "$TMP/out")"
[ ! -e "$TMP/good" ] && ok "good: -n made nothing" || bad "good: -n made $TMP/good"
"$PWTUNED" -c "$TMP/good.conf" >"$TMP/log" 2>&1 &
PID=$!
for _ in $(seq 100); do
	grep -q "listening on" "$TMP/log" && break
	kill -0 "$PID" 2>/dev/null || break
	sleep 0.05
done
grep -q "listening on 127.0.0.1:" "$TMP/log" && ok "good: starts" || { bad "good: did not start"; cat "$TMP/log"; }
kill -TERM "$PID" 2>/dev/null
wait "$PID" 2>/dev/null && ok "good: stops with 0" || bad "good: stop status"
PID=""
# Once started, the state it made passes -n as well.
expect_status 0 "good, with its state: -n passes" -- "$PWTUNED" -n -c "$TMP/good.conf"

finish
