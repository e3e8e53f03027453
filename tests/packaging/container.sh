#!/usr/bin/env bash
# docker/Dockerfile built and run for real, without a registry: a
# debian:12-slim stand-in made with debootstrap (minbase, bookworm) and
# podman import, the image built with podman's docker-compatible build,
# then run with the README's command adapted only as this machine needs
# (runc, where crun would refuse hybrid cgroups; ulimits under low hard
# limits; a free port on 127.0.0.1; a volume of this test's own). Checked:
# the answer after the start-up run, the memory budget from the
# container's cgroup, the health check, the non-root user, the state
# surviving a new container on the same volume, and podman stop ending it
# with exit 0.
#
# The debootstrap tree is cached as a tar under the build tree
# (BUILD_DIR/container-base/), so a second run skips it; the containers,
# the image, the volume and an imported base are removed at the end.
# Skipped (77) in a sanitizer build (the plain build's pass runs it), and
# where podman cannot run here, with the reason.
. "$(dirname "$0")/../cli/lib.sh"
: "${BUILD_DIR:?BUILD_DIR must name the build tree}"
: "${SRC:?SRC must name the source tree}"

skip() { echo "SKIP: $*"; exit 77; }
die() { finish; exit 1; }
[ -n "${SANITIZED:-}" ] && skip "a sanitizer build (the image is built and run by the plain build's tests)"
[ "$(id -u)" = 0 ] || skip "not root (the image is built and run by rootful podman)"
for c in podman debootstrap runc python3 curl; do
	command -v "$c" >/dev/null 2>&1 || skip "no $c here (make deps installs it)"
done
MIRROR=http://deb.debian.org/debian
curl -sfI --max-time 10 "$MIRROR/dists/bookworm/Release" >/dev/null ||
	skip "no network to $MIRROR (debootstrap and the image's apt-get need it)"

# The README's docker build and docker run, as words with the names this
# test replaces: @IMAGE@ (the tag), @SRC@ (the context), @NAME@, @PORT@
# (the published port on 127.0.0.1), @VOL@ (the state volume).
python3 - "$SRC/README.md" "$SRC/docs/OPERATIONS.md" "$TMP" <<'PY' || { bad "the README's commands"; die; }
import shlex, sys
def commands(path):
    text = open(path).read().replace("\\\n", " ")
    got = {}
    for line in text.splitlines():
        w = line.split()
        if w[:2] in (["docker", "build"], ["docker", "run"]):
            got.setdefault(w[1], shlex.split(line))
    return got
readme = commands(sys.argv[1])
if commands(sys.argv[2]) != readme:
    sys.exit("docs/OPERATIONS.md and the README give other commands")
out = {"build": [], "run": []}
for what, words in readme.items():
    words = words[2:]
    i = 0
    while i < len(words):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if what == "build" and w == "-t":
            out[what] += [w, "@IMAGE@"]; i += 1
        elif what == "build" and w == "-f":
            out[what] += [w, "@SRC@/" + nxt]; i += 1
        elif what == "build" and w == ".":
            out[what].append("@SRC@")
        elif what == "run" and w == "--name":
            out[what] += [w, "@NAME@"]; i += 1
        elif what == "run" and w == "-p" and nxt == "127.0.0.1:8421:8421":
            out[what] += [w, "127.0.0.1:@PORT@:8421"]; i += 1
        elif what == "run" and w == "-v" and nxt.endswith(":/var/lib/pwtuned"):
            out[what] += [w, "@VOL@:/var/lib/pwtuned"]; i += 1
        elif what == "run" and i == len(words) - 1:
            out[what].append("@IMAGE@")
        else:
            out[what].append(w)
        i += 1
for what in out:
    if not out[what]:
        sys.exit("no docker %s in the README" % what)
    open(sys.argv[3] + "/" + what + ".words", "w").write("\n".join(out[what]) + "\n")
PY
mapfile -t README_BUILD <"$TMP/build.words"
mapfile -t README_RUN <"$TMP/run.words"

# subst WORD...: the words with this test's names in.
subst() {
	local w
	for w in "$@"; do
		w=${w//@IMAGE@/$IMAGE}; w=${w//@SRC@/$SRC}; w=${w//@NAME@/${NAME:-}}
		w=${w//@PORT@/${PORT:-}}; w=${w//@VOL@/$VOL}
		printf '%s\n' "$w"
	done
}

T0=$(date +%s)
ID="pwtune-test-$$-$T0"
IMAGE="localhost/$ID:latest"
VOL="$ID"
C1="$ID-1"
C2="$ID-2"
BASE=debian:12-slim
BASE_IMPORTED=""
CACHE="$BUILD_DIR/container-base"
TAR="$CACHE/bookworm-minbase.tar"

# Only what this test made, by name; the log on a failure.
cleanup() {
	local c
	if [ "$failed" -gt 0 ]; then
		for c in "$C1" "$C2"; do
			podman container exists "$c" 2>/dev/null || continue
			echo "--- $c log (last 30 lines)"
			podman logs "$c" 2>&1 | tail -30
		done
		[ -s "$TMP/podman.err" ] && { echo "--- podman's stderr"; tail -20 "$TMP/podman.err"; }
	fi
	podman rm -f -t 0 "$C1" "$C2" >/dev/null 2>&1
	podman rmi -f "$IMAGE" >/dev/null 2>&1
	podman volume rm -f "$VOL" >/dev/null 2>&1
	[ -n "$BASE_IMPORTED" ] && podman rmi "$BASE_IMPORTED" >/dev/null 2>&1
	rm -rf "$TMP" "$CACHE/rootfs.$$" "$TAR.$$"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

elapsed() { echo $(($(date +%s) - T0)); }

# ---- the base image: debian:12-slim if podman has one, else ours ----
if podman image exists "$BASE"; then
	ok "base: $BASE, already in podman's store (kept)"
else
	if [ ! -s "$TAR" ]; then
		mkdir -p "$CACHE"
		if ! debootstrap --variant=minbase bookworm "$CACHE/rootfs.$$" "$MIRROR" \
		    >"$TMP/debootstrap.log" 2>&1; then
			bad "debootstrap --variant=minbase bookworm"
			tail -20 "$TMP/debootstrap.log"
			die
		fi
		# The apt lists and packages debootstrap leaves (slim has none).
		rm -rf "$CACHE/rootfs.$$"/var/lib/apt/lists/* \
			"$CACHE/rootfs.$$"/var/cache/apt/archives/*.deb
		tar -C "$CACHE/rootfs.$$" --numeric-owner -cf "$TAR.$$" . &&
			mv "$TAR.$$" "$TAR" || { bad "cannot write $TAR"; die; }
		rm -rf "$CACHE/rootfs.$$"
		ok "base: debootstrap minbase bookworm, cached ($(elapsed) s)"
	else
		ok "base: the cached debootstrap tree"
	fi
	podman import -q "$TAR" "localhost/$BASE" >/dev/null ||
		{ bad "podman import"; die; }
	BASE_IMPORTED="localhost/$BASE"
fi
# runc: crun refuses hybrid cgroups; the ulimits: podman's defaults (1M
# open files, 4M processes) are above this machine's hard limits.
RUNC=(podman --runtime runc run --ulimit nofile=20000:20000 --ulimit nproc=4096:4096)
"${RUNC[@]}" --rm --network none "$BASE" true 2>"$TMP/podman.err" ||
	skip "podman --runtime runc cannot run a container here: $(tail -1 "$TMP/podman.err")"

# ---- the image, as the README builds it ----
# podman's docker-compatible build: --format docker keeps HEALTHCHECK;
# --isolation chroot and --network host build without a runtime's
# container, as a machine where crun refuses the hybrid cgroups needs (runc
# builds here either way); no registry (--pull=never) and no cached
# layers left behind (--layers=false).
mapfile -t words < <(subst "${README_BUILD[@]}")
BUILD_CMD=(podman build --format docker --isolation chroot --network host
	--pull=never --layers=false "${words[@]}")
echo "  ${BUILD_CMD[*]}"
t=$(date +%s)
if "${BUILD_CMD[@]}" >"$TMP/build.log" 2>&1; then
	size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
	ok "podman build: $((size / 1000000)) MB in $(($(date +%s) - t)) s"
else
	bad "podman build"
	tail -40 "$TMP/build.log"
	die
fi
grep -q '^100% tests passed' "$TMP/build.log" &&
	ok "the build stage's unit tests: $(grep -c 'Test *#' "$TMP/build.log") passed" ||
	bad "no '100% tests passed' in the build log"
hc=$(podman image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE")
grep -q -- '--health' <<<"$hc" && ok "HEALTHCHECK kept (docker format)" ||
	bad "no HEALTHCHECK in the image: $hc"

# free_port: a port nothing listens on at 127.0.0.1 now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# run_image NAME PORT: the README's docker run, adapted to this machine
# (runc, the ulimits), with this test's names and port.
run_image() {
	local NAME=$1 PORT=$2 words
	mapfile -t words < <(subst "${README_RUN[@]}")
	RUN_CMD=("${RUNC[@]}" "${words[@]}")
	echo "  ${RUN_CMD[*]}"
	"${RUN_CMD[@]}" >/dev/null 2>>"$TMP/podman.err"
}

# wait_answer PORT TRIES: GET /v1/recommendation?target_ms=100 every
# 0.5 s until 200 or TRIES tries; the body in $TMP/answer.
wait_answer() {
	local i code
	for i in $(seq "$2"); do
		code=$(curl -s -o "$TMP/answer" -w '%{http_code}' --max-time 5 \
			"http://127.0.0.1:$1/v1/recommendation?target_ms=100")
		[ "$code" = 200 ] && return 0
		sleep 0.5
	done
	echo "  last answer: $code $(head -c 300 "$TMP/answer" 2>/dev/null)"
	return 1
}

# json FILE EXPR: a value of a JSON document (Python expression on j).
json() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# stop_check NAME: podman stop within the stop timeout, exit 0.
stop_check() {
	local timeout t ms rc
	timeout=$(podman inspect --format '{{.Config.StopTimeout}}' "$1")
	t=$(date +%s%N)
	podman stop "$1" >/dev/null 2>>"$TMP/podman.err"
	ms=$((($(date +%s%N) - t) / 1000000))
	rc=$(podman inspect --format '{{.State.ExitCode}}' "$1")
	[ "$rc" = 0 ] && [ "$ms" -lt $((timeout * 1000)) ] &&
		ok "$1: podman stop: exit 0 in $ms ms (stop timeout $timeout s)" ||
		bad "$1: podman stop: exit $rc in $ms ms (stop timeout $timeout s)"
}

# ---- the first container: the start-up run, then answers ----
P1=$(free_port)
run_image "$C1" "$P1" || { bad "podman run $C1"; die; }
t=$(date +%s)
if wait_answer "$P1" 240; then
	ok "$C1: /v1/recommendation 200 after the start-up run ($(($(date +%s) - t)) s)"
else
	bad "$C1: no answer within 120 s"
	die
fi
RUN1=$(json "$TMP/answer" 'j["model"]["run_id"]')
echo "  answer: $(json "$TMP/answer" 'j["phc_prefix"]'), run $RUN1"
# The first answer comes from the run's libsodium points; the run ends
# after libargon2's and the stacks' probes (the image's C probe: libsodium
# and libargon2 measured here, the other runtimes not installed).
done_=""
for _ in $(seq 240); do
	curl -s -o "$TMP/run" --max-time 5 "http://127.0.0.1:$P1/v1/runs/$RUN1"
	[ "$(json "$TMP/run" 'j.get("status")' 2>/dev/null)" = done ] &&
		{ done_=1; break; }
	sleep 0.5
done
[ -n "$done_" ] && ok "$C1: start-up run $RUN1 done ($(($(date +%s) - t)) s)" ||
	bad "$C1: run $RUN1 not done: $(head -c 300 "$TMP/run")"
wait_answer "$P1" 10 >/dev/null
[ "$(json "$TMP/answer" '[s["how"] for s in j["stacks"] if s["name"] in ("libsodium", "libargon2")]')" = "['probed here', 'probed here']" ] &&
	ok "$C1: the image's probe measured libsodium and libargon2" ||
	bad "$C1: stacks: $(json "$TMP/answer" '[(s["name"], s.get("how"), s.get("why")) for s in j["stacks"]]')"

# GET /v1/hosts: this host's budget and what set it.
curl -s --max-time 5 -o "$TMP/hosts" "http://127.0.0.1:$P1/v1/hosts"
read -r bytes source < <(json "$TMP/hosts" \
	'" ".join("%d %s" % (h["memory_budget"]["bytes"], h["memory_budget"]["source"])
	    for h in j["hosts"] if h.get("this_host"))')
mib=$((${bytes:-0} / 1048576))
[ "$source" = cgroup ] && [ "$mib" -ge 900 ] && [ "$mib" -le 1024 ] &&
	ok "budget from the cgroup: $mib MiB of --memory 2g" ||
	bad "budget: ${bytes:-none} bytes from ${source:-nothing}, wanted ~1 GiB from cgroup"

# No schedule without systemd: the check is run once, by hand.
podman healthcheck run "$C1" >"$TMP/hc" 2>&1
rc=$?
st=$(podman inspect --format '{{.State.Health.Status}}' "$C1" 2>/dev/null)
[ "$rc" = 0 ] && [ "$st" = healthy ] &&
	ok "$C1: podman healthcheck run: exit 0, status $st" ||
	bad "$C1: podman healthcheck run: exit $rc, status '$st': $(cat "$TMP/hc")"

hpid=$(podman inspect --format '{{.State.Pid}}' "$C1")
uid=$(awk '/^Uid:/ {print $2}' "/proc/$hpid/status" 2>/dev/null)
comm=$(cat "/proc/$hpid/comm" 2>/dev/null)
[ -n "$uid" ] && [ "$uid" != 0 ] && [ "$comm" = pwtuned ] &&
	ok "$C1: $comm runs as uid $uid ($(podman exec "$C1" id -un)), not root" ||
	bad "$C1: the process '$comm' runs as uid '${uid:-?}'"

# The README's docker exec: the token pwtuned wrote on the volume.
TOKEN=$(podman exec "$C1" cat /var/lib/pwtuned/token 2>>"$TMP/podman.err")
[ "${#TOKEN}" -ge 32 ] && ok "$C1: exec cat the token: ${#TOKEN} characters" ||
	bad "$C1: no token: '$TOKEN'"

stop_check "$C1"

# ---- a second container on the same volume: the first run's model ----
P2=$(free_port)
run_image "$C2" "$P2" || { bad "podman run $C2"; die; }
t=$(date +%s%N)
if wait_answer "$P2" 10; then
	RUN2=$(json "$TMP/answer" 'j["model"]["run_id"]')
	ms=$((($(date +%s%N) - t) / 1000000))
	[ "$RUN2" = "$RUN1" ] &&
		ok "$C2: the same volume's model at once: run $RUN2 in $ms ms" ||
		bad "$C2: answers from run $RUN2, not the first container's run $RUN1"
else
	bad "$C2: no answer within 5 s of its start on the same volume"
fi
[ "$(podman exec "$C2" cat /var/lib/pwtuned/token 2>>"$TMP/podman.err")" = "$TOKEN" ] &&
	ok "$C2: the same token" || bad "$C2: another token"
stop_check "$C2"

echo "  $(elapsed) s in all"
finish
