#!/usr/bin/env bash
# New questions cannot take the HTTP threads (D7): an answer to make
# costs a search (milliseconds; every stack's for the default answer), so
# answers made for new questions are budgeted (API_ANSWER_RATE a second,
# API_ANSWER_BURST at once, one HTTP thread fewer than there are at a
# time). Past it a new question is 429 with Retry-After, naming why; a
# question asked before is answered from its kept answer (Age, when an
# older model made it), never 429. Before: anyone asking new questions
# in a loop held every HTTP thread, and a kept answer took 0.7 s. Before
# there is a model nothing is searched: 503, never 429.
. "$(dirname "$0")/lib.sh"
seed_store
start_daemon
T=$(TOKEN)
A=(-H "Content-Type: application/json" -H "Authorization: Bearer $T")
Q0="/v1/recommendation?target_ms=250&floor=none"

expect_http 200 "a question asked before the flood" GET "$Q0"
expect_http 200 "... and again (as services do)" GET "$Q0"
# A run's start and end move the model's version: the kept answer of Q0
# is then an older model's.
expect_http 202 "a run asked" POST /v1/runs "${A[@]}" --data-binary '{"profile": "quick"}'
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$TMP/body")
wait_run "$id" '"status": *"running"' || bad "run $id did not start"
req DELETE "/v1/runs/$id" "${A[@]}"
wait_run "$id" '"status": *"(cancelled|interrupted)"' || bad "run $id was not cancelled"

# Eight clients ask new questions (each its own target) as fast as they
# can; once 64 were answered (the burst), a ninth asks Q0 again and
# again, and they go on until it is done.
python3 - "$PORT" "$Q0" >"$TMP/flood" <<'PY'
import http.client, json, sys, threading, time
port, q0 = int(sys.argv[1]), sys.argv[2]
codes, bad, old = {}, [], []
lock = threading.Lock()
spent = threading.Event()	# the budget's burst is spent
done = threading.Event()	# the ninth client is done
def ask(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("Retry-After"), r.getheader("Age"), body
def flood(n):
    i = 0
    while i < 40 or not done.is_set():
        i += 1
        path = "/v1/recommendation?target_ms=%d&floor=none" % (300 + n * 4000 + i)
        st, ra, _, body = ask(path)
        # Each asked twice more at once (the count a kept answer has is
        # of the seconds it was asked in, not of its askings: a loop
        # asking its own questions again does not outcount a service's).
        if st == 200:
            ask(path)
            ask(path)
        with lock:
            codes[st] = codes.get(st, 0) + 1
            if codes.get(200, 0) >= 64:
                spent.set()
            if st == 429:
                j = json.loads(body)
                if not (ra and ra.isdigit() and int(ra) >= 1
                        and j.get("type", "").endswith("/too-many-requests")
                        and "new questions" in j.get("detail", "")):
                    bad.append("a 429 without Retry-After or its reason: %r %r" % (ra, body[:200]))
            elif st != 200:
                bad.append("new question: HTTP %d" % st)
def again():
    spent.wait(60)
    for _ in range(30):
        st, _, age, _ = ask(q0)
        with lock:
            old.append((st, age))
        time.sleep(0.01)
    done.set()
ts = [threading.Thread(target=flood, args=(n,)) for n in range(8)]
ts.append(threading.Thread(target=again))
for t in ts: t.start()
for t in ts: t.join()
print(json.dumps({"codes": codes, "bad": bad, "old": old}))
PY
r() { python3 -c "import json,sys; j = json.load(open('$TMP/flood')); print($1)"; }
[ "$(r 'j["codes"].get("429", 0) > 0')" = True ] && ok "past the budget, new questions get 429 ($(r 'j["codes"]'))" ||
	bad "no new question was refused: $(r 'j["codes"]')"
[ "$(r 'j["codes"].get("200", 0) > 0')" = True ] && ok "within it, new questions are answered" ||
	bad "no new question was answered: $(r 'j["codes"]')"
[ "$(r 'len(j["bad"])')" = 0 ] && ok "each 429 has Retry-After and says why" || bad "$(r 'j["bad"][:3]')"
[ "$(r 'all(s == 200 for s, _ in j["old"])')" = True ] &&
	ok "the question asked before, once the budget was spent: 200 every time ($(r 'len(j["old"])') asks)" ||
	bad "the question asked before was refused: $(r '[s for s, _ in j["old"] if s != 200]')"
echo "# $(r 'sum(1 for _, a in j["old"] if a is not None)') of them the older model's answer, with Age"
# Once the bucket has filled again, a new question is answered.
sleep 2
expect_http 200 "after the flood, a new question is answered" GET "/v1/recommendation?target_ms=777&floor=none"
stop_daemon

# No model yet (no run): new questions search nothing and spend no
# budget: each is 503 with Retry-After, never 429 (it was 429 past 64).
VAR="$TMP/empty"
mkdir -m 700 "$VAR"
start_daemon
codes=$(for t in $(seq 300 420); do
	curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$PORT/v1/recommendation?target_ms=$t"
done | sort | uniq -c | tr -s ' \n' ' ')
[ "$codes" = " 121 503 " ] && ok "no model: 121 new questions, 121 x 503" || bad "no model: $codes"
stop_daemon
finish
