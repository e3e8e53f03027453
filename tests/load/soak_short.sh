#!/usr/bin/env bash
# L7, the short version: bench/soak.py for SOAK_SECONDS (180) with a
# re-benchmark every 90 s (a run with every installed runtime's probe
# takes about a minute here, and the rule samples the idle time between
# runs), the same pass rule as the long soak. Its CSV and PNG go to
# $SOAK_OUT. Not in sanitizer builds (the rule is about the
# daemon's own memory, which ASan changes).
. "$(dirname "$0")/../cli/lib.sh"
[ -n "${SANITIZED:-}" ] && { echo "skipped: a sanitizer build"; exit 77; }
OUT=${SOAK_OUT:-$TMP/soak}
if python3 "$SRC/bench/soak.py" --pwtuned "$PWTUNED" --duration "${SOAK_SECONDS:-180}" \
	--rebench 90 --sample 3 --out "$OUT"; then
	ok "soak: every rule held"
else
	bad "soak (above)"
	tail -20 "$OUT/soak-pwtuned.log"
fi
finish
