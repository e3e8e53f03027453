#!/usr/bin/env bash
# pwtune hash against Debian's argon2 command over a matrix of flags: the
# same lines in the same order, byte for byte, but the time.
. "$(dirname "$0")/lib.sh"
ARGON2=${ARGON2:-argon2}
if ! command -v "$ARGON2" >/dev/null; then
	echo "argon2 command not found (make deps installs it)"
	exit 1
fi

compare() {
	local salt=$1 pw=$2
	shift 2
	printf '%s' "$pw" | "$PWTUNE" hash "$salt" "$@" >"$TMP/ours" 2>&1
	local rc_ours=$?
	printf '%s' "$pw" | "$ARGON2" "$salt" "$@" >"$TMP/theirs" 2>&1
	local rc_theirs=$?
	# The time line differs by nature (and ours is wall clock).
	sed -i '/^[0-9]*\.[0-9]* seconds$/d' "$TMP/ours" "$TMP/theirs"
	if [ $rc_ours -eq 0 ] && [ $rc_theirs -eq 0 ] &&
	    cmp -s "$TMP/ours" "$TMP/theirs"; then
		ok "same output: salt=$salt $*"
	else
		bad "differs: salt=$salt $* (exit $rc_ours vs $rc_theirs)"
		diff "$TMP/ours" "$TMP/theirs" | head -10
	fi
}

# The example of the reference README and of the issue.
compare somesalt password -id -t 2 -m 16 -p 4 -l 24
# Every variant, both versions, every output mode.
for type in -i -d -id; do
	for v in 10 13; do
		compare somesalt password $type -v $v -m 10
		compare somesalt password $type -v $v -k 300 -p 3 -t 1 -e
		compare somesalt password $type -v $v -k 64 -t 4 -r -l 16
	done
done
# Defaults (Argon2i, t = 3, m = 2^12, p = 1, 32 bytes).
compare saltsalt "pass word"
# Lengths: tag 4 and 64, a long salt, a password with a newline and
# 8-bit bytes.
compare somesalt password -l 4 -k 8
compare somesalt password -l 64 -k 16 -id
compare "a-salt-of-sixty-four-characters-is-still-fine-for-both-commands" x -k 32
compare somesalt $'multi\nline \xc3\xa9' -id -k 128 -p 2
# Argon2's minimum memory is 8 * p: at the edge.
compare somesalt password -k 32 -p 4 -d
finish
