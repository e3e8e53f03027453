#!/usr/bin/env bash
# A benchmark child keeps none of its parent's descriptors, also where
# close_range(2) fails (kernels before 5.9, seccomp): pwtune bench runs
# with a descriptor open on a file of ours and close_range refused by an
# LD_PRELOAD shim; every child seen while it hashes must not hold it.
. "$(dirname "$0")/../cli/lib.sh"
: "${SHIM:?SHIM must name the no_close_range shim}"

# children_hold PID FILE: how many children of PID were seen, and how
# many held FILE open on two looks in a row (a child just forked holds it
# for the moment before it closes its parent's descriptors), polled every
# 20 ms while PID runs; after about 60 s PID is killed (a child that kept
# the parent's descriptors can hang it).
children_hold() {
	local pid=$1 file=$2 seen=0 held=0 c i prev="" now
	for i in $(seq 3000); do
		kill -0 "$pid" 2>/dev/null || break
		[ "$i" = 3000 ] && kill -9 "$pid" 2>/dev/null
		now=""
		for c in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do
			[ -d "/proc/$c/fd" ] || continue
			seen=$((seen + 1))
			if ls -l "/proc/$c/fd/" 2>/dev/null | grep -qF "$file"; then
				now="$now $c "
				case "$prev" in *" $c "*) held=$((held + 1)) ;; esac
			fi
		done
		prev=$now
		sleep 0.02
	done
	echo "$seen $held"
}

run() {	# run NAME [ENV=VALUE ...]
	local name=$1 pid out
	shift
	: >"$TMP/marker"
	env "$@" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		"$PWTUNE" bench --m 32MiB --t 4 --repeats 8 --backend libsodium \
		--no-json -q 7<"$TMP/marker" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	out=$(children_hold "$pid" "$TMP/marker")
	wait "$pid"
	local rc=$? seen=${out% *} held=${out#* }
	if [ "$rc" -ne 0 ]; then
		bad "$name: pwtune bench exited $rc ($held of $seen looks at children found the parent's descriptor open)"
		sed 's/^/  /' "$TMP/err" | head
	elif [ "$seen" -eq 0 ]; then
		bad "$name: no benchmark child seen"
	elif [ "$held" -eq 0 ]; then
		ok "$name: $seen looks at children, none held the parent's descriptor"
	else
		bad "$name: $held of $seen looks at children found the parent's descriptor open"
	fi
}

run "close_range works"
# The shim works: close_range fails in a process that preloads it.
if env LD_PRELOAD="$SHIM" ASAN_OPTIONS=verify_asan_link_order=0 python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
sys.exit(0 if libc.close_range(100, 200, 0) == -1 and ctypes.get_errno() == 38 else 1)'; then
	ok "the shim makes close_range fail with ENOSYS"
else
	bad "the shim does not make close_range fail"
fi
run "close_range refused" LD_PRELOAD="$SHIM"
finish
