#!/usr/bin/env bash
# make install into a temporary DESTDIR (through cmake --install, as the
# make target does): the tree docs/OPERATIONS.md lists, the unit's paths,
# every manual page rendered by man -l without a warning, the completion.
. "$(dirname "$0")/../cli/lib.sh"
: "${BUILD_DIR:?BUILD_DIR must name the build tree}"
D="$TMP/dest"
DESTDIR="$D" cmake --install "$BUILD_DIR" --prefix /usr >"$TMP/install.log" 2>&1 ||
	{ echo "FAIL: cmake --install"; cat "$TMP/install.log"; exit 1; }
for f in usr/bin/pwtune usr/sbin/pwtuned \
	usr/lib/systemd/system/pwtuned.service usr/lib/systemd/system/pwtuned.socket \
	etc/pwtuned/pwtuned.conf usr/share/doc/pwtune/pwtuned.conf.example \
	usr/share/doc/pwtune/OPERATIONS.md usr/share/doc/pwtune/README.md \
	usr/share/man/man1/pwtune.1 usr/share/man/man5/pwtuned.conf.5 \
	usr/share/man/man8/pwtuned.8 usr/share/bash-completion/completions/pwtune \
	usr/share/pwtune/probes/probe-c usr/share/pwtune/probes/probe.php \
	usr/share/pwtune/probes/probe.py usr/share/pwtune/probes/probe.js; do
	[ -f "$D/$f" ] && ok "installed: /$f" || bad "missing: /$f"
done
[ -x "$D/usr/bin/pwtune" ] && [ -x "$D/usr/sbin/pwtuned" ] && ok "programs executable" || bad "programs not executable"
extra=$(cd "$D" && find . -type f | sed 's|^\./||' | grep -vE '^(usr/(s?bin|lib/systemd/system|share/(man|doc/pwtune|bash-completion|pwtune/probes))|etc/pwtuned)/' )
[ -z "$extra" ] && ok "nothing else installed" || bad "unexpected files: $extra"
grep -qxF 'ExecStart=/usr/sbin/pwtuned -c /etc/pwtuned/pwtuned.conf --state-dir /var/lib/pwtuned' \
	"$D/usr/lib/systemd/system/pwtuned.service" && ok "unit: ExecStart names the installed paths" ||
	bad "unit: $(grep ExecStart "$D/usr/lib/systemd/system/pwtuned.service")"
"$D/usr/sbin/pwtuned" -n -c "$D/etc/pwtuned/pwtuned.conf" | grep -q "configuration OK" &&
	ok "the installed configuration checks" || bad "installed configuration"
"$D/usr/bin/pwtune" --help 2>&1 | grep -q recommend && ok "the installed pwtune runs" || bad "installed pwtune"

# The manual pages: rendered, no warning from groff, the sections right.
for page in man1/pwtune.1 man5/pwtuned.conf.5 man8/pwtuned.8; do
	f="$D/usr/share/man/$page"
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat man --warnings -l "$f" 2>"$TMP/warn")
	if [ $? -eq 0 ] && [ ! -s "$TMP/warn" ] && grep -q '^NAME' <<<"$out" &&
		grep -q '^SEE ALSO' <<<"$out"; then
		ok "man -l $page renders ($(wc -l <<<"$out") lines)"
	else
		bad "man -l $page: $(head -3 "$TMP/warn")"
	fi
done
# Every configuration key is in pwtuned.conf(5) and in the example file.
keys=$(sed -n 's/^\t{ "\([a-z_]*\)", K_.*/\1/p' "$SRC/daemon/config.c")
[ "$(wc -w <<<"$keys")" -gt 20 ] || bad "cannot read the keys from config.c"
missing=""
for k in $keys; do
	grep -q "^\.BR $k " "$D/usr/share/man/man5/pwtuned.conf.5" || missing="$missing man:$k"
	grep -qE "^$k =" "$D/etc/pwtuned/pwtuned.conf" || missing="$missing conf:$k"
done
[ -z "$missing" ] && ok "every key documented in pwtuned.conf(5) and the file" || bad "undocumented:$missing"
# Every flag of pwtuned --help is in pwtuned(8).
missing=""
for fl in $("$D/usr/sbin/pwtuned" --help | grep -oE -- '--[a-z-]+' | sort -u); do
	grep -qF -- "${fl//-/\\-}" "$D/usr/share/man/man8/pwtuned.8" || missing="$missing $fl"
done
[ -z "$missing" ] && ok "every pwtuned flag in pwtuned(8)" || bad "flags not in pwtuned(8):$missing"

# Completion: subcommands, options of one, values of another.
comp() {	# comp WORD...: what _pwtune offers for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pwtune; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$D/usr/share/bash-completion/completions/pwtune" "$@"
}
[ "$(comp pwtune re | sort | tr '\n' ' ')" = "recommend repl " ] && ok "completion: subcommands" || bad "completion: $(comp pwtune re)"
comp pwtune recommend --target | grep -qx -- --target-ms && ok "completion: options" || bad "completion: options"
[ "$(comp pwtune recommend --floor r)" = rfc9106 ] && ok "completion: values" || bad "completion: values"
comp "$D/usr/bin/pwtune" bench --preset OWASP-2 | grep -qx OWASP-2 && ok "completion: presets from pwtune itself" || bad "completion: presets"

# PREFIX=/usr/local: configuration and units follow the prefix.
D2="$TMP/dest2"
DESTDIR="$D2" cmake --install "$BUILD_DIR" --prefix /usr/local >/dev/null 2>&1
[ -f "$D2/usr/local/etc/pwtuned/pwtuned.conf" ] && [ -f "$D2/usr/local/lib/systemd/system/pwtuned.socket" ] &&
	ok "PREFIX=/usr/local: under /usr/local" || bad "PREFIX=/usr/local: $(cd "$D2" && find . -type f | head)"
finish
