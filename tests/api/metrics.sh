#!/bin/bash
# api.metrics: GET /metrics as Prometheus exporters name things, checked
# by promtool (Debian's prometheus package): requests by method, route
# pattern and status code, base units, one unit per family, no -1
# sentinels, pwtuned_build_info, the process_* metrics; the deprecated
# names still there for one minor version. The version in /healthz too.
. "$(dirname "$0")/lib.sh"

PROMTOOL=$(command -v promtool) || {
	echo "skipped: promtool is not installed (Debian's prometheus package: make deps)"
	exit 77
}

seed_store
start_daemon

# A few requests: 200s, a run by id (a route pattern), a 404, a 400.
expect_http 200 "a recommendation" GET "/v1/recommendation?target_ms=250"
expect_http 200 "a run by id" GET "/v1/runs/1"
expect_http 404 "no such path" GET "/no/such/path"
expect_http 400 "a bad parameter" GET "/v1/recommendation?target_ms=abc"
expect_http 405 "a method the path does not take" PUT "/v1/runs/1"
expect_http 200 "GET /metrics" GET /metrics
cp "$TMP/body" "$TMP/metrics"
M="$TMP/metrics"

# promtool: the text parses and follows the naming conventions.
if "$PROMTOOL" check metrics <"$M" >"$TMP/promtool" 2>&1; then
	ok "promtool check metrics: no problem"
else
	bad "promtool check metrics:"
	sed 's/^/  /' "$TMP/promtool" | head -20
fi

# has NAME REGEX: a line of /metrics matches REGEX (grep -E).
has() {
	if grep -qE "$2" "$M"; then ok "$1"; else bad "$1: no line matches $2"; fi
}
# hasnt NAME REGEX: no line does.
hasnt() {
	if grep -qE "$2" "$M"; then
		bad "$1: $(grep -E "$2" "$M" | head -1)"
	else
		ok "$1"
	fi
}

has "requests: method, route, code apart" \
	'^pwtuned_http_requests_total\{method="GET",route="/v1/recommendation",code="200"(,[^}]*)?\} [1-9]'
has "requests: a route pattern for an id" \
	'^pwtuned_http_requests_total\{method="GET",route="/v1/runs/\{id\}",code="200"(,[^}]*)?\} 1$'
has "requests: the 400 by its code" \
	'^pwtuned_http_requests_total\{method="GET",route="/v1/recommendation",code="400"(,[^}]*)?\} 1$'
has "requests: an unmatched path is route other" \
	'^pwtuned_http_requests_total\{method="GET",route="other",code="404"(,[^}]*)?\} 1$'
has "requests: 405 under the path's pattern" \
	'^pwtuned_http_requests_total\{method="PUT",route="/v1/runs/\{id\}",code="405"(,[^}]*)?\} 1$'
has "latency: by method and route" \
	'^pwtuned_http_request_seconds_bucket\{method="GET",route="/v1/recommendation",le="\+Inf"\} [1-9]'
has "latency: its count" \
	'^pwtuned_http_request_seconds_count\{method="GET",route="/v1/recommendation"\} [1-9]'
has "the answer: memory in bytes" '^pwtuned_recommendation_memory_bytes [1-9][0-9]*$'
has "the answer: iterations" '^pwtuned_recommendation_iterations [1-9][0-9]*$'
has "the answer: lanes" '^pwtuned_recommendation_lanes [1-9][0-9]*$'
has "the answer: predicted seconds" '^pwtuned_recommendation_predicted_seconds 0\.[0-9]+$'
has "the model's error as a ratio" '^pwtuned_model_loo_error_ratio\{stat="worst"\} [0-9]+\.[0-9]+$'
has "the last run's time" '^pwtuned_last_run_timestamp_seconds [1-9][0-9]*$'
has "build info" \
	"^pwtuned_build_info\\{version=\"[0-9]+\\.[0-9]+\\.[0-9]+\",libsodium=\"[^\"]+\",libargon2=\"[^\"]+\",libmicrohttpd=\"[^\"]+\"\\} 1$"
for p in process_cpu_seconds_total process_resident_memory_bytes \
	process_virtual_memory_bytes process_open_fds process_max_fds \
	process_start_time_seconds; do
	has "$p" "^$p [0-9.e+]+$"
done
# Plausible: started within the last hour, some resident memory, the fds
# open at least the listener and the one /proc/self/fd was read through.
python3 - "$M" <<'PY' && ok "process_*: plausible values" || bad "process_*: values"
import sys, time
v = {}
for line in open(sys.argv[1]):
    if line.startswith("process_"):
        k, x = line.split()
        v[k] = float(x)
start = v["process_start_time_seconds"]
ok = (time.time() - 3600 < start <= time.time() + 1 and
      v["process_resident_memory_bytes"] > 1 << 20 and
      v["process_virtual_memory_bytes"] >= v["process_resident_memory_bytes"] and
      3 <= v["process_open_fds"] <= v["process_max_fds"] and
      0 <= v["process_cpu_seconds_total"] < 3600)
if not ok:
    print(v)
sys.exit(0 if ok else 1)
PY
hasnt "no -1 sentinel" ' -1$'

# The old names, one minor version more, their HELP naming the new ones.
has "deprecated: the status class label kept" \
	'^pwtuned_http_requests_total\{method="GET",route="/v1/recommendation",code="200",status="2xx"\} [1-9]'
has "deprecated: pwtuned_recommendation{param}" '^pwtuned_recommendation\{param="m_kib"\} [1-9]'
has "deprecated: its HELP says so" \
	'^# HELP pwtuned_recommendation .*deprecated: use pwtuned_recommendation_memory_bytes'
has "deprecated: pwtuned_model_error" '^pwtuned_model_error\{stat="median"\} [0-9.]+$'
has "deprecated: pwtuned_last_run_age_seconds" '^pwtuned_last_run_age_seconds [0-9]+$'

# /healthz carries the version pwtuned_build_info has.
expect_http 200 "GET /healthz" GET /healthz
v=$(sed -n 's/^pwtuned_build_info{version="\([^"]*\)".*/\1/p' "$M")
expect_body "/healthz: the version" "j['status'] == 'ok' and j['version'] == '$v'"
stop_daemon

# No run at all: the last run's gauges are absent, not -1.
rm -f "$VAR/pwtune.db"
start_daemon
expect_http 200 "GET /metrics, no run" GET /metrics
cp "$TMP/body" "$M"
hasnt "no run: no last run timestamp" '^pwtuned_last_run_(timestamp|age)_seconds '
hasnt "no run: no -1 sentinel" ' -1$'
if "$PROMTOOL" check metrics <"$M" >"$TMP/promtool" 2>&1; then
	ok "promtool check metrics, no run: no problem"
else
	bad "promtool check metrics, no run:"; sed 's/^/  /' "$TMP/promtool" | head -20
fi
stop_daemon

finish
