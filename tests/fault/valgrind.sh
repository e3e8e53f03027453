#!/usr/bin/env bash
# S15: pwtuned under valgrind memcheck through API scenarios: no error, no
# definite or indirect leak (--error-exitcode fails stop_daemon, which
# wants exit 0), and no descriptor left open at exit but the standard
# three. pwtune seeds the store natively; only the daemon runs under
# valgrind.
. "$(dirname "$0")/../cli/lib.sh"
command -v valgrind >/dev/null || { echo "skipped: no valgrind"; exit 77; }
[ -n "${SANITIZED:-}" ] && { echo "skipped: a sanitizer build (ASan and valgrind do not mix)"; exit 77; }
SCENARIOS=${SCENARIOS:-basic auth static openapi bad_input}
for s in $SCENARIOS; do
	logs="$TMP/vg-$s"
	mkdir -p "$logs"
	out=$(WRAP="valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --track-fds=yes --child-silent-after-fork=yes --log-file=$logs/%p.log" \
		START_TRIES=600 bash "$SRC/tests/api/$s.sh" 2>&1)
	rc=$?
	summary=$(tail -1 <<<"$out")
	if [ $rc -eq 0 ]; then
		ok "api.$s under valgrind: $summary"
	else
		bad "api.$s under valgrind (exit $rc): $summary"
		grep -E "^FAILED" <<<"$out" | head -5 | sed 's/^/    /'
	fi
	n=$(ls "$logs" | wc -l)
	errs=$(cat "$logs"/*.log 2>/dev/null | grep -cE "^==[0-9]+== (Invalid|Conditional|Use of|Syscall param|Mismatched|.*definitely lost|.*indirectly lost)")
	n=$(ls "$logs" | wc -l)
	errs=$(cat "$logs"/*.log 2>/dev/null | grep -cE "^==[0-9]+== (Invalid|Conditional|Use of|Syscall param|Mismatched|.*definitely lost|.*indirectly lost)")
	fds=$(cat "$logs"/*.log 2>/dev/null | sed -n 's/.*FILE DESCRIPTORS: \([0-9]*\) open (3 std) at exit.*/\1/p' | sort -u | tr '\n' ' ')
	[ "$n" -gt 0 ] && [ "$errs" -eq 0 ] && ok "api.$s: $n pwtuned runs, 0 valgrind reports" ||
		{ bad "api.$s: $errs reports in $n logs"; grep -h -A8 -E "^==[0-9]+== (Invalid|Conditional|.*lost)" "$logs"/*.log | head -30; }
	# Descriptors open at exit that pwtuned opened itself (not inherited).
	leaked=$(cat "$logs"/*.log 2>/dev/null | awk '
		/== Open / { want = $0; next }
		want != "" { if ($0 !~ /inherited from parent/) print want; want = "" }')
	[ -z "$leaked" ] && ok "api.$s: no descriptor of its own left open at exit" ||
		bad "api.$s: left open at exit: $(head -5 <<<"$leaked")"
done
finish
