#!/usr/bin/env bash
# The container's entry point as PID 1 (unshare --pid --fork --mount-proc):
# ENTRYPOINT, CMD and ENV are read from docker/Dockerfile, with the state
# directory and the listen address moved to this test's (127.0.0.1, a free
# port). pwtuned must serve, reap its benchmark children, and exit 0
# within 2 s of SIGTERM while a benchmark runs.
. "$(dirname "$0")/../api/lib.sh"
DOCKERFILE="$SRC/docker/Dockerfile"

# The last stage's ENTRYPOINT + CMD (exec form) and ENV, as shell words.
python3 - "$DOCKERFILE" "$PWTUNED" "$TMP/cmd" "$TMP/env" <<'PY' || { echo "FAIL: cannot read the Dockerfile"; exit 1; }
import json, re, shlex, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
stage = re.split(r"(?m)^FROM ", text)[-1]
entry = cmd = None
env = {}
for line in stage.splitlines():
    m = re.match(r"\s*(ENTRYPOINT|CMD|ENV)\s+(.*)", line)
    if not m:
        continue
    if m.group(1) == "ENV":
        for kv in shlex.split(m.group(2)):
            k, v = kv.split("=", 1)
            env[k] = v
    elif m.group(1) == "ENTRYPOINT":
        entry = json.loads(m.group(2))
    else:
        cmd = json.loads(m.group(2))
assert entry and entry[0] == "/usr/sbin/pwtuned", entry
argv = [sys.argv[2]] + entry[1:] + (cmd or [])
open(sys.argv[3], "w").write("\n".join(argv) + "\n")
open(sys.argv[4], "w").write("\n".join(k + "=" + v for k, v in env.items()) + "\n")
PY
mapfile -t ARGV <"$TMP/cmd"
mapfile -t ENVS <"$TMP/env"
# The image's configuration file is the repository's.
for i in "${!ARGV[@]}"; do
	[ "${ARGV[$i]}" = /etc/pwtuned/pwtuned.conf ] && ARGV[$i]="$SRC/systemd/pwtuned.conf"
done
grep -q '^PWTUNED_LISTEN=0.0.0.0:8421$' "$TMP/env" && ok "the image listens on all addresses" || bad "image ENV: $(cat "$TMP/env")"

UNSHARE=(unshare --pid --fork --mount-proc)
[ "$(id -u)" = 0 ] || UNSHARE=(unshare --user --map-root-user --pid --fork --mount-proc)
"${UNSHARE[@]}" true 2>/dev/null || { echo "SKIP: no PID namespaces here"; exit 77; }

: >"$TMP/log"
env -i PATH=/usr/bin:/bin "${ENVS[@]}" PWTUNED_LISTEN=127.0.0.1:0 \
	PWTUNED_STATE_DIR="$VAR" PWTUNED_LOG_FORMAT=text PWTUNED_STARTUP_PROFILE=quick \
	PWTUNED_MEMORY_MAX=64MiB PWTUNED_VERIFY_TARGETS=none PWTUNED_PROBES=none PWTUNED_CHECK_BUDGET=0 \
	"${UNSHARE[@]}" "${ARGV[@]}" >>"$TMP/log" 2>&1 &
UPID=$!
for _ in $(seq 100); do
	PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/log")
	[ -n "$PORT" ] && break
	sleep 0.05
done
[ -n "$PORT" ] || { echo "FAIL: did not start"; cat "$TMP/log"; kill -9 "$UPID"; exit 1; }
INNER=$(cat "/proc/$UPID/task/$UPID/children" | awk '{print $1}')
PID=$INNER
nspid=$(awk '/^NSpid:/ {print $NF}' "/proc/$INNER/status")
[ "$nspid" = 1 ] && ok "pwtuned is PID 1 in its namespace" || bad "NSpid $nspid"
expect_http 200 "it serves" GET /healthz
PWTUNED_LISTEN="127.0.0.1:$PORT" "$PWTUNED" --health >/dev/null && ok "--health: healthy" || bad "--health"

# Wait for the start-up run to measure, so SIGTERM arrives mid-benchmark.
for _ in $(seq 200); do
	grep -q '"points_done":[1-9]' <(curl -s "http://127.0.0.1:$PORT/v1/runs") && break
	sleep 0.05
done
zombies=0
for c in $(cat /proc/"$INNER"/task/*/children 2>/dev/null); do
	[ "$(awk '{print $3}' "/proc/$c/stat" 2>/dev/null)" = Z ] && zombies=$((zombies + 1))
done
[ "$zombies" -eq 0 ] && ok "no zombie children of PID 1 mid-run" || bad "$zombies zombies"
start=$(date +%s%N)
kill -TERM "$INNER"
wait "$UPID"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
PID=""
[ $rc -eq 0 ] && ok "SIGTERM as PID 1: exit 0" || { bad "SIGTERM as PID 1: exit $rc"; tail -5 "$TMP/log"; }
[ "$ms" -lt 2000 ] && ok "...within 2 s ($ms ms)" || bad "SIGTERM took $ms ms"
grep -q "interrupted" "$TMP/log" && ok "the running benchmark was interrupted, not abandoned" ||
	bad "no interrupted run in the log"
finish
