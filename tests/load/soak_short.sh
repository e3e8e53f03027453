#!/usr/bin/env bash
# L7, the short version: bench/soak.py for SOAK_SECONDS (180) with a
# re-benchmark every 60 s, the same pass rule as the long soak. Its CSV
# and PNG go to $SOAK_OUT. Not in sanitizer builds (the rule is about the
# daemon's own memory, which ASan changes).
. "$(dirname "$0")/../cli/lib.sh"
[ -n "${SANITIZED:-}" ] && { echo "skipped: a sanitizer build"; exit 77; }
OUT=${SOAK_OUT:-$TMP/soak}
if python3 "$SRC/bench/soak.py" --pwtuned "$PWTUNED" --duration "${SOAK_SECONDS:-180}" \
	--rebench 60 --sample 3 --out "$OUT"; then
	ok "soak: every rule held"
else
	bad "soak (above)"
	tail -20 "$OUT/soak-pwtuned.log"
fi
finish
