#!/bin/bash
# tests/stacks/probes.sh: every stack probe whose runtime is installed here
# speaks the protocol of docs/STACKS.md: WARMUP=1 and one point of two
# hashes at t = 3 (the warm-up hashes two passes, fewer than the point's:
# each runtime takes them) give a header line and one point line of valid
# JSON, exit 0; bad usage exits 2 and says why on stderr. A probe whose
# runtime is missing (not built, or exit 3 with its one error line) is
# skipped with its reason; the test fails if no probe ran at all. Python
# without its site directories and probe.js away from node_modules show
# the exit-3 path.
#
# PROBE_DIR is the probe directory of the build (set by ctest).
. "$(dirname "$0")/../cli/lib.sh" || exit 1
: "${PROBE_DIR:?PROBE_DIR must name the probe directory}"
D=$PROBE_DIR
BCPROV=/usr/share/java/bcprov.jar
ran=0
skipped=0

# check_lines STACK FILE: FILE holds a valid header line and one valid
# point line; prints them, or what is wrong.
check_lines() {
	python3 - "$1" "$2" <<'PY'
import json, sys
stack, path = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines()
if len(lines) != 2:
    sys.exit("%d lines on stdout, wanted 2: %r" % (len(lines), lines[:4]))
try:
    h, pt = json.loads(lines[0]), json.loads(lines[1])
except ValueError as e:
    sys.exit("not JSON: %s: %r" % (e, lines))
if not (isinstance(h, dict) and h.get("probe") == stack and
        isinstance(h.get("runtime"), str) and h["runtime"] and
        isinstance(h.get("library"), str) and h["library"]):
    sys.exit("bad header line: %r" % lines[0])
want_t = 3
s = pt.get("samples_ms") if isinstance(pt, dict) else None
if not (pt.get("m_kib") == 8192 and pt.get("t") == want_t and
        pt.get("p") == 1 and isinstance(s, list) and len(s) == 2 and
        all(isinstance(x, (int, float)) and not isinstance(x, bool) and
            0 < x < 60000 for x in s)):
    sys.exit("bad point line: %r" % lines[1])
print("%s: %s, %s: %s ms" % (stack, h["runtime"], h["library"], s))
PY
}

# probe STACK MISSING-REASON|"" BAD-ARGS -- COMMAND...: run COMMAND with
# the test's point, then with each of the bad argument lists (split on |).
probe() {
	local stack=$1 missing=$2 bads=$3 point=8192:3:1:2 rc out bad
	shift 4
	if [ -n "$missing" ]; then
		echo "skip   $stack: $missing"
		skipped=$((skipped + 1))
		return
	fi
	timeout 60 "$@" 1 "$point" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc = 3 ]; then
		if [ "$(wc -l <"$TMP/out")" = 1 ] && python3 -c '
import json, sys
e = json.loads(open(sys.argv[1]).read())
sys.exit(0 if isinstance(e.get("error"), str) and e["error"] else 1)' \
		    "$TMP/out" 2>/dev/null; then
			echo "skip   $stack: $(cat "$TMP/out")"
			skipped=$((skipped + 1))
		else
			bad "$stack: exit 3 without one {\"error\": ...} line"
			sed 's/^/  stdout: /' "$TMP/out" | head -5
		fi
		return
	fi
	ran=$((ran + 1))
	if [ $rc != 0 ]; then
		bad "$stack: exit $rc on WARMUP=1 POINT=$point"
		sed 's/^/  stdout: /' "$TMP/out" | head -5
		sed 's/^/  stderr: /' "$TMP/err" | head -5
	elif out=$(check_lines "$stack" "$TMP/out" 2>&1); then
		ok "$out"
	else
		bad "$stack: $out"
	fi
	IFS='|' read -r -a bads <<<"$bads"
	for bad in "${bads[@]}"; do
		# shellcheck disable=SC2086 # the bad arguments are words
		timeout 60 "$@" $bad >"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ $rc = 2 ] && [ -s "$TMP/err" ] && [ ! -s "$TMP/out" ]; then
			ok "$stack: '$bad' is bad usage (exit 2): $(head -1 "$TMP/err")"
		else
			bad "$stack: '$bad' exits $rc, wanted 2 with a message on stderr only"
		fi
	done
}

# Bad usage for all: no point, a point of three fields, a negative warm-up,
# m under 8 KiB a lane, n = 0.
BAD='1|1 8192:1:1|-1 8192:1:1:2|1 15:1:2:1|1 8192:1:1:0|1 8192:x:1:2'
have() { command -v "$1" >/dev/null 2>&1; }
need() { # need FILE REASON: the reason when FILE is not there
	[ -e "$1" ] || echo "$2"
}

probe libsodium "$(need "$D/probe-c" "probe-c not built")" \
	"$BAD|1 8192:1:2:2" -- "$D/probe-c" libsodium
probe libargon2 "$(need "$D/probe-c" "probe-c not built")" \
	"$BAD|nosuch 1 8192:1:1:2" -- "$D/probe-c" libargon2
php_missing=""
have php || php_missing="php is not installed (php-cli)"
[ -z "$php_missing" ] && php_missing=$(need "$D/probe.php" "probe.php is not there")
probe php "$php_missing" "$BAD" -- php "$D/probe.php" password_hash
probe php-sodium "$php_missing" "$BAD|1 8192:1:2:2" -- \
	php "$D/probe.php" sodium
py_missing=$(need /usr/bin/python3 "/usr/bin/python3 is not installed")
[ -z "$py_missing" ] && py_missing=$(need "$D/probe.py" "probe.py is not there")
probe python-argon2-cffi "$py_missing" "$BAD" -- \
	/usr/bin/python3 "$D/probe.py" argon2-cffi
probe python-pynacl "$py_missing" "$BAD|1 8192:1:2:2" -- \
	/usr/bin/python3 "$D/probe.py" pynacl
probe go "$(need "$D/probe-go" "probe-go not built (go, golang-golang-x-crypto-dev)")" \
	"$BAD" -- "$D/probe-go"
node_missing=""
have node || node_missing="node is not installed (nodejs)"
[ -z "$node_missing" ] && node_missing=$(need "$D/probe.js" "probe.js is not there")
probe node-argon2 "$node_missing" "$BAD|1 8192:1:1:2" -- node "$D/probe.js"
java_missing=""
have java || java_missing="java is not installed (default-jdk-headless)"
[ -z "$java_missing" ] && java_missing=$(need "$D/java/Probe.class" \
	"the java probe is not built (javac, libbcprov-java)")
[ -z "$java_missing" ] && java_missing=$(need "$BCPROV" \
	"$BCPROV is not installed (libbcprov-java)")
probe java-bouncycastle "$java_missing" "$BAD" -- \
	java -cp "$D/java:$BCPROV" Probe

# The missing-library path (exit 3, one error line on stdout): Python
# without its site directories, probe.js copied where no node_modules is.
# missing_lib NAME -- COMMAND...
missing_lib() {
	local name=$1
	shift 2
	"$@" 1 8192:2:1:1 >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	if [ $rc = 3 ] && [ "$(wc -l <"$TMP/out")" = 1 ] &&
		grep -q '^{"error":"[^"]*not installed[^"]*"}$' "$TMP/out"; then
		ok "$name: exit 3, $(cat "$TMP/out")"
	else
		bad "$name: exit $rc, wanted 3 and one error line"
		sed 's/^/  stdout: /' "$TMP/out" | head -3
	fi
}
if [ -z "$py_missing" ]; then
	missing_lib "python3 -S probe.py argon2-cffi" -- \
		/usr/bin/python3 -S "$D/probe.py" argon2-cffi
fi
if [ -z "$node_missing" ]; then
	mkdir -p "$TMP/nomodules"
	cp "$D/probe.js" "$TMP/nomodules/"
	missing_lib "probe.js without node_modules" -- \
		env NODE_PATH= node "$TMP/nomodules/probe.js"
fi

echo "$ran probes ran, $skipped skipped"
[ "$ran" -gt 0 ] || bad "no probe ran: no runtime installed, or none built"
finish
