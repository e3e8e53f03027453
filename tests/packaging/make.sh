#!/usr/bin/env bash
# The Makefile's set-up (make -n: nothing runs, nothing is installed):
# make run installs the client runtimes the probes time before it builds
# (the build looks for go and javac), STACKS=no skips them; make test
# installs them too, through probe-deps; apt-get runs under one lock.
. "$(dirname "$0")/../cli/lib.sh"
: "${SRC:?SRC must name the source tree}"
command -v make >/dev/null || { echo "skipped: no make"; exit 77; }
M=(make -s -C "$SRC" -n BUILD="$TMP/build" STATE_DIR="$TMP/var")
# The Makefile's own list, so that the test follows it.
STACK=$(make -s -C "$SRC" -n -p 2>/dev/null | sed -n 's/^STACK_PACKAGES := //p' | head -1)
[ -n "$STACK" ] && ok "STACK_PACKAGES: $STACK" || bad "no STACK_PACKAGES in the Makefile"

"${M[@]}" run >"$TMP/run" 2>&1 || bad "make -n run: $(tail -3 "$TMP/run")"
inst=$(grep -n "for p in $STACK;" "$TMP/run" | head -1 | cut -d: -f1)
npm=$(grep -n 'npm ci' "$TMP/run" | head -1 | cut -d: -f1)
cm=$(grep -n 'cmake -S' "$TMP/run" | head -1 | cut -d: -f1)
start=$(grep -n 'daemon/pwtuned --state-dir' "$TMP/run" | head -1 | cut -d: -f1)
[ -n "$inst" ] && ok "make run installs the runtimes ($STACK)" || bad "make run: no install of $STACK"
[ -n "$npm" ] && ok "make run installs the node probe's argon2 (npm ci)" || bad "make run: no npm ci"
[ -n "$inst" ] && [ -n "$cm" ] && [ "$inst" -lt "$cm" ] && ok "... before it configures the build" ||
	bad "make run: runtimes at line ${inst:-none}, cmake at ${cm:-none}"
[ -n "$start" ] && [ "$start" -gt "${cm:-0}" ] && ok "make run starts pwtuned after the build" ||
	bad "make run: pwtuned at line ${start:-none}"
"${M[@]}" run STACKS=no STATE_DIR='/tmp/a b' >"$TMP/space" 2>&1 || bad "make -n run STATE_DIR='/tmp/a b': $(tail -3 "$TMP/space")"
grep -q "pwtuned --state-dir '/tmp/a b' --listen" "$TMP/space" && ok "make run quotes a STATE_DIR with a space" ||
	bad "make run: STATE_DIR not quoted: $(grep 'pwtuned --state-dir' "$TMP/space")"
grep -A1 'daemon/pwtuned --state-dir' "$TMP/run" | grep -q 'make run PORT=8422 STATE_DIR=var2' &&
	ok "make run names its own PORT= and STATE_DIR= when pwtuned fails" ||
	bad "make run: no PORT=/STATE_DIR= hint when pwtuned fails"
grep -q 'nodejs' "$TMP/run" && grep -q 'npm' "$TMP/run" && ok "make run installs node and npm when missing" ||
	bad "make run: nodejs or npm not named"

"${M[@]}" run STACKS=no >"$TMP/bare" 2>&1 || bad "make -n run STACKS=no: $(tail -3 "$TMP/bare")"
grep -q "for p in $STACK;" "$TMP/bare" && bad "STACKS=no still installs the runtimes" ||
	ok "make run STACKS=no installs no runtime"
grep -q 'npm ci' "$TMP/bare" && bad "STACKS=no still runs npm ci" || ok "... and no npm ci"
grep -q 'daemon/pwtuned --state-dir' "$TMP/bare" && ok "... and still starts pwtuned" || bad "STACKS=no: no pwtuned"
# MEMORY_MAX: the daemon's budget; without it, none is given.
grep -q 'PWTUNED_MEMORY_MAX' "$TMP/bare" && bad "make run sets a memory budget unasked" ||
	ok "make run without MEMORY_MAX leaves the budget to the host"
"${M[@]}" run STACKS=no MEMORY_MAX=256MiB >"$TMP/mem" 2>&1 || bad "make -n run MEMORY_MAX=256MiB: $(tail -3 "$TMP/mem")"
grep -q "PWTUNED_MEMORY_MAX='256MiB' .*daemon/pwtuned --state-dir" "$TMP/mem" &&
	ok "make run MEMORY_MAX=256MiB gives it to pwtuned" || bad "MEMORY_MAX not given: $(grep pwtuned "$TMP/mem")"

"${M[@]}" test FUZZ_SECONDS=0 >"$TMP/test" 2>&1 || true
grep -q "for p in $STACK;" "$TMP/test" && ok "make test installs the runtimes" || bad "make test: no runtimes"
# make -j test runs deps and deps-build side by side: each apt-get waits
# for the other under one lock, never fails on apt's own.
n_apt=$(grep -o "apt-get update -qq" "$TMP/test" | wc -l)
n_flock=$(grep -o "flock [^ ]*/Makefile sh -c 'apt-get update -qq" "$TMP/test" | wc -l)
[ "$n_apt" -ge 2 ] && [ "$n_apt" = "$n_flock" ] &&
	ok "every apt-get of make test holds the one lock ($n_flock of $n_apt)" ||
	bad "apt-get without the lock: $n_flock of $n_apt under flock"
finish
