#!/usr/bin/env bash
# bench/scoped.sh: what one distinct scoped question costs a pwtuned, two
# builds side by side (before and after a change), on the same store.
#
#   bench/scoped.sh [-n HOSTS] [-q QUESTIONS] PWTUNE BEFORE_PWTUNED AFTER_PWTUNED
#
# HOSTS imaginary hosts (tests/fleet/hosts.py: each its own model) are
# imported into a SQLite store with PWTUNE (default 300); each pwtuned
# serves a copy of it on 127.0.0.1, answers one scope=fleet question to
# fit the models, then QUESTIONS (default 200) distinct questions one
# after the other, each on a new connection, of two kinds:
#
#   stack    scope=fleet&objective=attacker-cost&stack=b-N: the attack of
#            issue 15 (no stack has observations: no correction, so every
#            host's own answer is the one of the first question)
#   target   scope=fleet&target_ms=200+N: every host's own answer is
#            searched again
#
# Prints the median and p90 ms per question for each build and the ratio
# after / before. The two builds take turns, kind by kind.
set -u
HOSTS=300
QUESTIONS=200
while getopts n:q: o; do
	case $o in
	n) HOSTS=$OPTARG ;;
	q) QUESTIONS=$OPTARG ;;
	*) echo "usage: $0 [-n HOSTS] [-q QUESTIONS] PWTUNE BEFORE AFTER" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || { echo "usage: $0 [-n HOSTS] [-q QUESTIONS] PWTUNE BEFORE AFTER" >&2; exit 2; }
PWTUNE=$1
BIN=("$2" "$3")
SRC=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

mkdir -p "$TMP/runs" "$TMP/store"
python3 "$SRC/tests/fleet/hosts.py" "$SRC/tests/data/quick-run.json" \
	"$HOSTS" "$TMP/runs" || exit 1
for i in $(seq 0 $((HOSTS - 1))); do
	"$PWTUNE" db import --db "$TMP/store/pwtune.db" "$TMP/runs/host-$i.json" \
		>/dev/null || exit 1
done

PORTS=()
for b in 0 1; do
	mkdir -p "$TMP/d$b"
	chmod 700 "$TMP/d$b"
	cp "$TMP/store/pwtune.db" "$TMP/d$b/pwtune.db"
	PWTUNED_STARTUP_PROFILE=none PWTUNED_COOLDOWN=0 "${BIN[$b]}" \
		--state-dir "$TMP/d$b" --listen 127.0.0.1:0 >"$TMP/d$b.log" 2>&1 &
	PIDS+=($!)
	port=""
	for _ in $(seq 100); do
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/d$b.log")
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "pwtuned ${BIN[$b]} did not start"; cat "$TMP/d$b.log"; exit 1; }
	PORTS+=("$port")
done

python3 - "${PORTS[0]}" "${PORTS[1]}" "$QUESTIONS" "$HOSTS" <<'PY'
import http.client, sys, time

ports, q, hosts = sys.argv[1:3], int(sys.argv[3]), sys.argv[4]

def ask(port, path):
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=600)
    c.request("GET", path)
    r = c.getresponse()
    r.read()
    c.close()
    if r.status != 200:
        sys.exit("HTTP %d for %s" % (r.status, path))
    return (time.monotonic() - t0) * 1000

base = "/v1/recommendation?floor=none&scope=fleet"
for p in ports:
    ask(p, base + "&target_ms=250&objective=attacker-cost")
kinds = {
    "stack": lambda n: base + "&target_ms=250&objective=attacker-cost"
                              "&stack=b-%d" % n,
    "target": lambda n: base + "&target_ms=%d" % (200 + n),
}
print("scoped questions: %s hosts, %d distinct questions of each kind, "
      "one at a time" % (hosts, q))
print("%-7s %-7s %12s %10s %14s" % ("kind", "build", "median ms", "p90 ms",
                                    "after/before"))
for kind, path in kinds.items():
    lat = [[], []]
    for n in range(q):
        for b in (0, 1):
            lat[b].append(ask(ports[b], path(n)))
    med = []
    for b, name in ((0, "before"), (1, "after")):
        v = sorted(lat[b])
        med.append(v[len(v) // 2])
        print("%-7s %-7s %12.2f %10.2f %14s" % (
            kind, name, med[b], v[int(len(v) * 0.9)],
            "%.3f" % (med[1] / med[0]) if b == 1 else ""))
PY
