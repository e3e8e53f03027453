#!/usr/bin/env python3
"""tests/fleet/scoped_load.py: /v1/recommendation's latency alone, then
while clients ask distinct scoped questions as fast as they are answered.

Usage: scoped_load.py PORT QUESTIONS CLIENTS DEADLINE_S [stack|target] [MIN_S]

Phase 1: 200 host-scoped requests, one every 10 ms, each on a new
connection (so they land on every HTTP thread). Phase 2: CLIENTS
processes (not threads: the probe must not wait for the loaders' turn at
Python's lock), each question on a new connection (on every HTTP thread
too), ask at least QUESTIONS distinct questions between them, and go on
with new ones until MIN_S seconds (default 5) have passed, so that the
probe's p99 under the load is one of a few hundred samples, not the
largest of a few dozen (scope=fleet, objective=attacker-cost,
stack=s-N: none has observations, so each is a 400 after one look in the
store), while the probe goes on as in phase 1
until they are done or DEADLINE_S passed. With "target", the questions
differ by target_ms (200 + N) instead: every host's own answer is
searched for each, the costliest distinct question. Prints one line of key=value
figures (ms) for the shell to eval.
"""
import http.client
import multiprocessing
import sys
import time

port, questions, clients, deadline = (int(sys.argv[1]), int(sys.argv[2]),
                                      int(sys.argv[3]), float(sys.argv[4]))
kind = sys.argv[5] if len(sys.argv) > 5 else "stack"
min_s = float(sys.argv[6]) if len(sys.argv) > 6 else 5.0
PROBE = "/v1/recommendation?target_ms=250"


def get(conn, path):
    conn.request("GET", path)
    r = conn.getresponse()
    r.read()
    return r.status


def probe_once(lat, errors):
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        st = get(c, PROBE)
        c.close()
    except OSError:
        st = 0
    lat.append((time.monotonic() - t0) * 1000)
    if st != 200:
        errors.append(st)


def p99(v):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * 0.99))] if v else -1


idle, idle_err = [], []
for _ in range(200):
    probe_once(idle, idle_err)
    time.sleep(0.01)

start = time.monotonic()
end = start + deadline


def client(idx, out):
    answered, lat = {}, []
    n = idx
    while n < questions or time.monotonic() < start + min_s:
        if time.monotonic() >= end:
            break
        if kind == "target":
            path = ("/v1/recommendation?target_ms=%d&floor=none"
                    "&scope=fleet" % (200 + n))
        else:
            path = ("/v1/recommendation?target_ms=250&floor=none"
                    "&scope=fleet&objective=attacker-cost&stack=s-%d" % n)
        t0 = time.monotonic()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            st = get(conn, path)
            conn.close()
        except (OSError, http.client.HTTPException):
            st = 0
        answered[st] = answered.get(st, 0) + 1
        lat.append((time.monotonic() - t0) * 1000)
        n += clients
    out.put((answered, lat))


out = multiprocessing.Queue()
procs = [multiprocessing.Process(target=client, args=(i, out))
         for i in range(clients)]
t0 = time.monotonic()
for p in procs:
    p.start()
busy, busy_err = [], []
results = []
while len(results) < clients and time.monotonic() < end + 30:
    probe_once(busy, busy_err)
    while not out.empty():
        results.append(out.get())
    time.sleep(0.01)
wall = time.monotonic() - t0
for p in procs:
    p.join(5)
answered, qlat = {}, []
for a, lat in results:
    for k, v in a.items():
        answered[k] = answered.get(k, 0) + v
    qlat += lat
qlat.sort()
print("idle_p99=%.1f idle_n=%d idle_errors=%d busy_p99=%.1f busy_n=%d "
      "busy_errors=%d questions=%d answered_200=%d answered_400=%d "
      "answered_429=%d other=%d wall_s=%.1f question_median=%.1f" % (
          p99(idle), len(idle), len(idle_err), p99(busy), len(busy),
          len(busy_err), sum(answered.values()), answered.get(200, 0),
          answered.get(400, 0), answered.get(429, 0),
          sum(v for k, v in answered.items() if k not in (200, 400, 429)),
          wall,
          qlat[len(qlat) // 2] if qlat else -1))
