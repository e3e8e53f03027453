#!/usr/bin/env bash
# Issue 15 item 7: scoped questions cannot be made to stall the rest.
# 300 imaginary hosts on a SQLite store (hosts.py) and this host's own
# run; /v1/recommendation's p99 measured alone, then while 4 clients ask
# at least 2000 distinct scoped questions, for at least 5 s so that the
# p99 is one of a few hundred probes (scope=fleet, objective=attacker-cost, a
# stack each: the attack of the issue; names without observations, each a
# 400 after one look in the store, issue 17): every answer 400, and the p99
# under 50 ms (RELIABILITY L2's bound; not judged in a sanitizer build).
# Then as many that differ by target (each searches every host's answer):
# 200 within the daemon's budget of searches, 429 past it, and the same
# p99 bound.
# GET /v1/hosts over the 300 hosts: asked again, the presets of each run
# are the ones kept (not refitted): none fitted the second time.
. "$(dirname "$0")/../api/lib.sh" || exit 1
. "$(dirname "$0")/many.sh" || exit 1
N=300
import_hosts "$N"
# This host's own run: the same run JSON under its id and fingerprint.
start_daemon
read -r ID FP < <(sed -n 's/.*info: host \([0-9a-f]\{32\}\), fingerprint \([0-9a-f]\{32\}\).*/\1 \2/p' "$TMP/log")
stop_daemon
python3 - "$(dirname "$0")/../data/quick-run.json" "$ID" "$FP" >"$TMP/self.json" <<'PY'
import json, sys, time
j = json.load(open(sys.argv[1]))
j["host"]["host_id"], j["host"]["fingerprint"] = sys.argv[2], sys.argv[3]
j["created"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
json.dump(j, sys.stdout)
PY
"$PWTUNE" db import --db "$VAR/pwtune.db" "$TMP/self.json" >/dev/null ||
	bad "import this host's run"
start_daemon -- -v
expect_http 200 "this host answers" GET "/v1/recommendation?target_ms=250"

# The presets of each run fitted once (debug log), then kept: a second
# listing fits none. Timed by curl, for the record only (a noisy host's
# single request says little).
htime() {
	curl -s -o "$TMP/body" -w '%{time_total}' --max-time 60 \
		"http://127.0.0.1:$PORT/v1/hosts" 2>/dev/null | awk '{ printf "%d", $1 * 1000 }'
}
fitted() { grep -c 'presets of run [0-9]* fitted' "$TMP/log"; }
first=$(htime)
expect_body "GET /v1/hosts: every host, each with its presets" \
	"len(j['hosts']) == $((N + 1)) and all(len(h['presets']) > 0 for h in j['hosts'])"
n1=$(fitted)
again=$(htime)
n2=$(fitted)
if [ "$n1" -ge "$N" ] && [ "$n2" = "$n1" ]; then
	ok "GET /v1/hosts again: no run's presets fitted again ($n1 the first time; $again ms, first $first ms)"
else
	bad "GET /v1/hosts: presets fitted $n1 times the first time, $((n2 - n1)) again (want >= $N, then 0)"
fi

# stack: the first question searched each host's answer, the others only
# predict. target: each searches every host's answer again, within the
# daemon's budget of searches (429 past it).
expect_http 200 "a first scoped question: each host's own answer searched" \
	GET "/v1/recommendation?target_ms=250&floor=none&scope=fleet&objective=attacker-cost"
for kind in stack target; do
	python3 "$(dirname "$0")/scoped_load.py" "$PORT" 2000 ${LOADERS:-4} 120 "$kind" \
		>"$TMP/load.out" || bad "scoped_load.py $kind"
	echo "       $kind: $(cat "$TMP/load.out")"
	eval "$(cat "$TMP/load.out")"
	if [ "$kind" = stack ]; then
		want=$((questions >= 2000 && answered_400 == questions))
	else
		want=$((questions >= 2000 && answered_200 > 0 &&
			answered_200 + answered_429 == questions))
	fi
	if [ "$want" = 1 ] && [ "${other:-1}" = 0 ] &&
		[ "${busy_errors:-1}" = 0 ] && [ "${idle_errors:-1}" = 0 ]; then
		ok "$kind: $questions distinct scoped questions: $answered_200 answered 200, $answered_400 400, $answered_429 429 (median ${question_median} ms, ${wall_s} s), probes 0 errors"
	else
		bad "$kind: ${answered_200:-0}/${questions:-?} answered 200, ${answered_400:-0} 400, ${answered_429:-0} 429, ${other:-?} other, probe errors ${idle_errors:-?} + ${busy_errors:-?}"
	fi
	if [ -n "${SANITIZED:-}" ]; then
		echo "sanitizer build: p99 ${busy_p99:-?} ms under load (${idle_p99:-?} ms alone) not judged"
	elif awk -v p="${busy_p99:-999}" 'BEGIN { exit !(p < 50) }'; then
		ok "$kind: /v1/recommendation p99 ${busy_p99} ms under the load (${idle_p99} ms alone) < 50 ms"
	else
		bad "$kind: /v1/recommendation p99 ${busy_p99:-?} ms under the load (${idle_p99:-?} ms alone), not < 50 ms"
	fi
done

# A client asking what it asked before is not starved by another asking
# new questions: past the keep of 5 s, with no search left, it gets the
# answer kept for it (with Age), not 429.
python3 - "$PORT" "${SANITIZED:+9}" >"$TMP/victim.out" <<'PY'
import http.client, multiprocessing, random, sys, time
port = int(sys.argv[1])
# In a sanitizer build (below) the kept answer need not come: 9 s there.
most = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] else 40
V = "/v1/recommendation?target_ms=333&floor=none&scope=fleet&objective=attacker-cost"

def attack(stop, deadline):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            c.request("GET", "/v1/recommendation?floor=none&scope=fleet&objective=attacker-cost&target_ms=%d" % random.randint(400, 600000))
            c.getresponse().read()
        except OSError:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

def ask(c):
    c.request("GET", V)
    r = c.getresponse()
    r.read()
    return r.status, r.getheader("Age")

c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
# Its first asking waits for the searches the loads above took back.
for _ in range(50):
    first, _ = ask(c)
    if first != 429:
        break
    time.sleep(0.2)
# Four clients at it, so that the searches run out whatever this
# machine's speed (one alone, each of its questions a search of every
# host, could ask no faster than the budget gives back). The asking goes
# on for at least 9 s, and on a slow host until the kept answer has been
# served past its keep (Age >= 5) or 40 s have gone: a busy machine can
# take a few rounds of the attackers to evict this question's searches.
start = time.monotonic()
deadline = start + most
stop = multiprocessing.Event()
attackers = [multiprocessing.Process(target=attack, args=(stop, deadline)) for _ in range(4)]
for a in attackers:
    a.start()
statuses, ages = [], []
while time.monotonic() < deadline:
    st, age = ask(c)
    statuses.append(st)
    if age is not None:
        ages.append(int(age))
    if time.monotonic() - start >= 9 and ages and max(ages) >= 5:
        break
    time.sleep(0.25)
stop.set()
for a in attackers:
    a.join()
print("first=%d asked=%d ok=%d n429=%d stale=%d max_age=%d ms_each=%d" % (first, len(statuses),
      statuses.count(200), statuses.count(429), len(ages), max(ages) if ages else -1,
      int(1000 * (time.monotonic() - start) / max(1, len(statuses)))))
PY
eval "$(tr ' ' '\n' <"$TMP/victim.out" | sed 's/^/v_/')"
# In a sanitizer build, or on a machine so busy that each asking took a
# second or more (seen once in CI: 34 in 40 s), the loop asks too slowly
# to take every search: the kept answer need not be served there, but no
# asking may be refused.
if [ "${v_first:-0}" = 200 ] && [ "${v_ok:-0}" -gt 0 ] && [ "${v_ok}" = "${v_asked}" ] &&
	{ [ -n "${SANITIZED:-}" ] || [ "${v_ms_each:-0}" -ge 1000 ] ||
	{ [ "${v_stale:-0}" -gt 0 ] && [ "${v_max_age:-0}" -ge 5 ]; }; }; then
	ok "a question asked again while another client takes every search: $v_ok of $v_asked answered 200, $v_stale from the kept answer$([ "$v_stale" -gt 0 ] && echo " (Age up to $v_max_age s)")"
else
	bad "a question asked again under another's new questions: $(cat "$TMP/victim.out")"
fi
stop_daemon
finish
