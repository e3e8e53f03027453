#!/usr/bin/env bash
# The units: what the service must say, and its hardening scored by
# systemd-analyze security --offline (the exposure must stay <= 2.0).
. "$(dirname "$0")/../cli/lib.sh"
: "${BUILD_DIR:?BUILD_DIR must name the build tree}"
UNIT="$BUILD_DIR/systemd/pwtuned.service"
SOCK="$SRC/systemd/pwtuned.socket"
[ -f "$UNIT" ] || { echo "FAIL: $UNIT was not generated"; exit 1; }

for want in 'Type=notify' 'DynamicUser=yes' 'StateDirectory=pwtuned' \
	'ConfigurationDirectory=pwtuned' 'ExecReload=/bin/kill -HUP $MAINPID' \
	'Restart=on-failure' 'OOMPolicy=continue' 'NotifyAccess=main'; do
	grep -qxF "$want" "$UNIT" && ok "service: $want" || bad "service lacks $want"
done
grep -qE '^WatchdogSec=[1-9]' "$UNIT" && ok "service: WatchdogSec" || bad "service: no WatchdogSec"
grep -qE '@[A-Z]+@' "$UNIT" && bad "service: a placeholder was not filled in: $(grep -E '@[A-Z]+@' "$UNIT")" ||
	ok "service: ExecStart paths filled in"
grep -qxF 'ListenStream=127.0.0.1:8421' "$SOCK" && grep -qxF 'Accept=no' "$SOCK" &&
	ok "socket: loopback, one listening socket passed" || bad "socket unit"

# The score. --threshold=20 fails the command above an exposure of 2.0.
out=$(systemd-analyze security --offline=true --threshold=20 "$UNIT" 2>&1)
rc=$?
score=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
echo "  exposure: $score"
[ $rc -eq 0 ] && [ -n "$score" ] && ok "systemd-analyze security: $score <= 2.0" ||
	{ bad "systemd-analyze security (rc $rc, exposure ${score:-?})"; printf '%s\n' "$out" | grep '✗' | head -20; }
# The check can fail: the same unit without its hardening scores far worse.
grep -vE '^(Protect|Private|Restrict|SystemCall|Capability|NoNewPrivileges|MemoryDeny|LockPersonality|DynamicUser|UMask|RemoveIPC|DevicePolicy|KeyringMode|AmbientCapabilities)' \
	"$UNIT" >"$TMP/pwtuned.service"
systemd-analyze security --offline=true --threshold=20 "$TMP/pwtuned.service" >/dev/null 2>&1 &&
	bad "an unhardened unit passed the threshold too" || ok "an unhardened unit fails the same check"
systemd-analyze verify --man=no "$SOCK" 2>&1 | grep -v "pwtuned.service" | grep -q . &&
	bad "socket unit: $(systemd-analyze verify --man=no "$SOCK" 2>&1 | head -3)" || ok "socket unit verifies"
finish
