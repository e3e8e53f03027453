#!/usr/bin/env bash
# Every read endpoint on a seeded store: health, readiness, the answer and
# its ETag, presets, runs, metrics, unknown paths and methods.
. "$(dirname "$0")/lib.sh"
seed_store
start_daemon

expect_http 200 "healthz" GET /healthz
expect_body "healthz body: status and version" 'j["status"] == "ok" and len(j) == 2 and [x.isdigit() for x in j["version"].split(".")] == [True] * 3'
expect_http 200 "readyz" GET /readyz
expect_body "readyz names the run" 'j["ready"] is True and j["model_run"] == 1'

expect_http 200 "recommendation" GET "/v1/recommendation?target_ms=250"
expect_body "recommendation: parameters and the rest" '
    j["met"] and j["m_kib"] % 1024 == 0 and j["t"] >= 1 and j["p"] == 1
    and j["phc_prefix"].startswith("$argon2id$v=19$m=")
    and j["latency"]["predicted_ms"] <= 250 and j["capacity_per_s"] > 0
    and j["floor"]["name"] == "owasp" and j["attacker"]["gpu_guesses_per_s"] > 0
    and set(j["snippets"]) == {"php", "python", "go", "node", "java", "c"}
    and j["model"]["run_id"] == 1 and j["stale"] is False'
expect_body "recommendation: JSON, nosniff, ETag" '
    h["content-type"] == "application/json" and h["x-content-type-options"] == "nosniff"
    and h["etag"].startswith("\"r1-")'
etag=$(sed -n 's/^ETag: //Ip' "$TMP/headers" | tr -d '\r')
expect_http 304 "same query, same model: 304" GET "/v1/recommendation?target_ms=250" -H "If-None-Match: $etag"
expect_http 200 "another query: a new answer" GET "/v1/recommendation?target_ms=2000&concurrency=2&memory_max=256MiB&percentile=99&floor=none&objective=attacker-cost&parallelism=1&variant=argon2id&backend=libsodium"
expect_body "another query: its parameters" 'j["latency"]["concurrency"] == 2 and j["latency"]["percentile"] == 99 and j["objective"] == "attacker-cost"'
expect_http 422 "impossible target: 422" GET "/v1/recommendation?target_ms=1"
expect_body "422 carries the closest admissible answer" '
    h["content-type"] == "application/problem+json" and j["status"] == 422
    and j["param"] == "target_ms" and "closest admissible" in j["detail"]
    and any(j["closest"]["m_kib"] >= m and j["closest"]["t"] >= t for m, t in
        [(47104, 1), (19456, 2), (12288, 3), (9216, 4), (7168, 5)])
    and j["closest"]["latency"]["predicted_ms"] > 1'

expect_http 200 "presets" GET /v1/presets
expect_body "presets: OWASP-2 predicted" 'any(p["name"] == "OWASP-2" and p["predicted_ms_p95"] > 0 for p in j["presets"])'
expect_http 200 "runs" GET /v1/runs
expect_body "runs: the seeded one" 'j["runs"][0]["id"] == 1 and j["runs"][0]["status"] == "done" and j["runs"][0]["trigger"] == "cli"'
expect_http 200 "run 1" GET /v1/runs/1
expect_body "run 1: points" 'j["points_done"] == 8 and j["points_total"] == 8'
expect_http 404 "run 99" GET /v1/runs/99
expect_http 404 "run abc" GET /v1/runs/abc
expect_http 404 "run 0" GET /v1/runs/0

expect_http 200 "hosts" GET /v1/hosts
expect_body "hosts: this one, fresh, with its facts" '
    len(j["hosts"]) == 1 and j["hosts"][0]["this_host"] is True
    and j["hosts"][0]["stale"] is False and j["hosts"][0]["last_run"] == 1
    and j["hosts"][0]["facts"]["online_cpus"] >= 1 and len(j["hosts"][0]["id"]) == 32'
expect_body "hosts: budget, what set it, preset times, the slowest" '
    j["hosts"][0]["memory_budget"]["bytes"] > 0
    and j["hosts"][0]["memory_budget"]["source"] in ("cgroup", "memavailable", "config")
    and j["hosts"][0]["last_run_finished"].endswith("Z")
    and any(p["name"] == "OWASP-2" and p["predicted_ms_p95"] > 0 for p in j["hosts"][0]["presets"])
    and j["slowest_host"] == j["hosts"][0]["id"] and j["hosts"][0]["slowest"] is True'
hid=$(python3 -c "import json; print(json.load(open('$TMP/body'))['hosts'][0]['id'])")
expect_http 200 "host by id" GET "/v1/hosts/$hid"
expect_body "host by id: the same host" "j['id'] == '$hid' and 'cpu_model' in j['facts']"
expect_http 200 "model" GET /v1/model
# seed_store: m = 8..64 MiB x t = 1, 3 at k = 1: two lines, one per t,
# each over the measured range; every point is in the answer.
expect_body "model: the run, its points, one line per t, no verification yet" '
    j["run_id"] == 1 and len(j["points"]) == 8
    and sorted(l["t"] for l in j["lines"]) == [1, 3]
    and all(l["points"][0]["m_kib"] == 8192 and l["points"][-1]["m_kib"] == 65536 for l in j["lines"])
    and all(p["p50_ms"] > 0 and p["p95_ms"] >= p["p50_ms"] * 0.999 for l in j["lines"] for p in l["points"])
    and j["concurrency"] == [] and j["verifications"] == []'
expect_http 404 "host that never was" GET /v1/hosts/00000000000000000000000000000000
expect_http 404 "host id not hex" GET "/v1/hosts/..%2f..%2fetc"

expect_http 200 "metrics" GET /metrics
grep -q '^pwtuned_http_requests_total{method="GET",route="/v1/recommendation",code="200",status="2xx"} [1-9]' "$TMP/body" && ok "metrics: requests by method, route and code" || bad "metrics: requests"
grep -q '^pwtuned_http_request_seconds_bucket{method="GET",route="/v1/recommendation",le="+Inf"} [1-9]' "$TMP/body" && ok "metrics: latency histogram" || bad "metrics: histogram"
grep -q '^pwtuned_recommendation_memory_bytes [1-9]' "$TMP/body" && ok "metrics: the default answer" || bad "metrics: answer"
grep -q '^pwtuned_benchmark_in_progress 0' "$TMP/body" && ok "metrics: no benchmark" || bad "metrics: benchmark gauge"
grep -q '^pwtuned_last_run_timestamp_seconds [1-9]' "$TMP/body" && ok "metrics: time of the last run" || bad "metrics: last run"
grep -q '^pwtuned_model_ready 1' "$TMP/body" && grep -q '^pwtuned_model_stale 0' "$TMP/body" &&
	grep -qE '^pwtuned_model_loo_error_ratio\{stat="worst"\} [0-9]+\.[0-9]+$' "$TMP/body" && ok "metrics: model ready, fresh, its error" || bad "metrics: model gauges"

expect_http 404 "unknown path" GET /v2/nothing
expect_body "404 is problem+json" 'j["status"] == 404 and j["type"] == "/problems/not-found"'
expect_http 405 "POST /healthz" POST /healthz
expect_body "405 says Allow" 'h["allow"] == "GET" and j["status"] == 405'
expect_http 405 "PUT /v1/runs" PUT /v1/runs
expect_body "405 on runs: Allow GET, POST" 'h["allow"] == "GET, POST"'
# Paths no route has count as route "other" (a host id with a slash
# too); a method a path does not take, under the path's pattern.
expect_http 200 "metrics after unknown paths" GET /metrics
grep -qE '^pwtuned_http_requests_total\{method="GET",route="other",code="404",status="4xx"\} [2-9]$' "$TMP/body" &&
	ok "metrics: unknown paths count as other" ||
	bad "metrics: no other row: $(grep 'other' "$TMP/body")"
grep -qE '^pwtuned_http_requests_total\{method="PUT",route="/v1/runs",code="405",status="4xx"\} 1$' "$TMP/body" &&
	grep -qE '^pwtuned_http_requests_total\{method="POST",route="/healthz",code="405",status="4xx"\} 1$' "$TMP/body" &&
	ok "metrics: 405s under their path" ||
	bad "metrics: 405s: $(grep 'code="405"' "$TMP/body")"
stop_daemon

# allowed_hosts: a configured name is served, others still are not.
start_daemon PWTUNED_ALLOWED_HOSTS=pwtune.example,other.example
expect_http 200 "allowed_hosts: a configured name" GET /healthz -H "Host: pwtune.example:8421"
expect_http 421 "allowed_hosts: any other name" GET /healthz -H "Host: evil.example"
stop_daemon
finish
