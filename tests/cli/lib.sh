# tests/cli/lib.sh: shared by the command-line tests. Source it; call
# `check NAME COMMAND...` style helpers, then `finish`, which prints the
# closing "N passed, N failed" line and exits non-zero on any failure.
#
# PWTUNE is the pwtune binary (set by ctest).
set -u
: "${PWTUNE:?PWTUNE must name the pwtune binary}"
passed=0
failed=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { passed=$((passed + 1)); echo "ok     $*"; }
bad() { failed=$((failed + 1)); echo "FAILED $*"; }

# expect_status WANT NAME -- runs "$@" (after --), stdout to $TMP/out,
# stderr to $TMP/err, and compares the exit status.
expect_status() {
	local want=$1 name=$2 got
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" = "$want" ]; then
		ok "$name"
	else
		bad "$name: exit $got, wanted $want"
		sed 's/^/  stdout: /' "$TMP/out" | head -5
		sed 's/^/  stderr: /' "$TMP/err" | head -5
	fi
}

# expect_stderr NAME TEXT: the last command's stderr contains TEXT.
expect_stderr() {
	if grep -qF -- "$2" "$TMP/err"; then
		ok "$1"
	else
		bad "$1: stderr does not say '$2'"
		sed 's/^/  stderr: /' "$TMP/err" | head -5
	fi
}

# expect_stdout NAME TEXT: the last command's stdout contains TEXT.
expect_stdout() {
	if grep -qF -- "$2" "$TMP/out"; then
		ok "$1"
	else
		bad "$1: stdout does not say '$2'"
		sed 's/^/  stdout: /' "$TMP/out" | head -5
	fi
}

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}
