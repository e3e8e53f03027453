#!/usr/bin/env python3
"""Concurrent distinct questions to GET /v1/recommendation: every answer
must be the answer to its own question (target, floor, memory_max).

answers.py PORT SECONDS CLIENTS: CLIENTS-1 processes ask target_ms from
1 to 400 with floor=none and memory_max=1024 (small answers that keep the
answer cache's slots changing hands); one asks target_ms=250 with the
default floor. Prints the counts; exits 1 on any mismatch or error.
New questions past the daemon's budget of answers made are 429 (with
Retry-After), counted apart: the distinct questions are asked as often as
target_ms=250 here, so its kept answer may be pushed out like theirs (a
kept answer's count is of the minutes it was asked in); a 429 without
Retry-After is an error. Every answer given must be its question's."""
import http.client
import json
import multiprocessing
import sys
import time


def check(body, status, target, floor, retry_after=None):
    if status == 429:
        return None if retry_after else "429 without Retry-After"
    j = json.loads(body)
    if status == 422:
        j = j.get("closest")
    elif status != 200:
        return "HTTP %d" % status
    if j is None:
        return "no answer in a %d" % status
    got = (j["latency"]["target_ms"], j["floor"]["name"])
    if got != (float(target), floor):
        return "asked target_ms=%d floor=%s, answered %r (m=%d t=%d)" % (
            target, floor, got, j["m_kib"], j["t"])
    if floor == "none" and j["m_kib"] > 1024:
        return "asked memory_max=1024, answered m=%d" % j["m_kib"]
    return None


def client(port, seconds, which, out):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    end = time.monotonic() + seconds
    n = bad = refused = 0
    first = None
    i = which * 37
    while time.monotonic() < end:
        if which == 0:
            target, floor, q = 250, "owasp", "target_ms=250"
        else:
            target = 1 + i % 400
            floor = "none"
            q = "target_ms=%d&floor=none&memory_max=1024" % target
            i += 1
        try:
            conn.request("GET", "/v1/recommendation?" + q)
            r = conn.getresponse()
            body = r.read()
            why = check(body, r.status, target, floor,
                        r.getheader("Retry-After"))
            refused += r.status == 429
        except (OSError, http.client.HTTPException, ValueError,
                KeyError) as e:
            why = "error: %r" % e
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        n += 1
        if why is not None:
            bad += 1
            if first is None:
                first = why
    out.put((which, n, bad, first, refused))


def main():
    port, seconds, clients = int(sys.argv[1]), float(sys.argv[2]), \
        int(sys.argv[3])
    out = multiprocessing.Queue()
    ps = [multiprocessing.Process(target=client,
                                  args=(port, seconds, w, out))
          for w in range(clients)]
    for p in ps:
        p.start()
    res = [out.get(timeout=seconds + 60) for _ in ps]
    for p in ps:
        p.join()
    total = sum(r[1] for r in res)
    bad = sum(r[2] for r in res)
    mine = [r for r in res if r[0] == 0][0]
    print("%d answers, %d not to their own question, %d new ones past "
          "the budget (429) (target_ms=250: %d answers, %d wrong, %d "
          "429)" % (total, bad, sum(r[4] for r in res), mine[1], mine[2],
                    mine[4]))
    for r in res:
        if r[3] is not None:
            print("  client %d: %s" % (r[0], r[3]))
    sys.exit(1 if bad or total == 0 else 0)


if __name__ == "__main__":
    main()
