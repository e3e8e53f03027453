#!/usr/bin/env bash
# docker/Dockerfile, checked without a container engine: its build steps
# are make targets that exist; the commands called by the unit tests it
# runs are in the base or installed there; the runtime stage installs a
# package for every library pwtuned and pwtune link against directly;
# what it copies from the staged install exists there (or is made by the
# build stage); it runs as a non-root user with the state directory as a
# volume and a health check that needs no curl. packaging.container
# builds and runs it.
. "$(dirname "$0")/../cli/lib.sh"
: "${BUILD_DIR:?BUILD_DIR must name the build tree}"
DF="$SRC/docker/Dockerfile"
flat=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$DF")

grep -q '^FROM debian:12-slim AS build' <<<"$flat" && [ "$(grep -c '^FROM debian:12-slim' <<<"$flat")" = 2 ] &&
	ok "two stages on debian:12-slim" || bad "stages: $(grep '^FROM' <<<"$flat")"
targets=$(grep '^RUN' <<<"$flat" | grep -oE '(RUN|&&) +make [a-z-]+' | awk '{print $NF}' | sort -u)
[ -n "$targets" ] && ok "build steps call make targets: $(echo $targets)" || bad "no make target in the build stage"
for t in $targets; do
	make -n -C "$SRC" "$t" BUILD="$TMP/b" >/dev/null 2>&1 && ok "make $t exists" || bad "make $t does not"
done

# What the unit tests the build stage runs call through system(): each
# command is in an Essential package (in every Debian base) or installed
# by the build stage's apt-get line.
pkg_of() {
	local f
	for f in "$(readlink -f "$(command -v "$1")")" "/bin/$1" "/usr/bin/$1"; do
		dpkg -S "$f" 2>/dev/null | head -1 | cut -d: -f1 | grep . && return
	done
}
build_stage=$(awk '/^FROM debian:12-slim AS build/ {b = 1; next} /^FROM/ {b = 0} b' <<<"$flat")
build_apt=$(grep -oE 'apt-get install [^&]*' <<<"$build_stage" | tr ' ' '\n' | grep -vE '^-|^(apt-get|install)$')
if grep -q -- '-L unit' <<<"$build_stage"; then
	# The buffers handed to system(), and the commands written into them
	# (a test's expected text in another buffer is not a command).
	bufs=$(grep -ohE 'system\([a-z]+\)' "$SRC"/tests/unit/*.c |
		sed -E 's/system\(([a-z]+)\)/\1/' | sort -u | paste -sd '|')
	cmds=$(grep -ohE "snprintf\(($bufs), sizeof\(($bufs)\),[[:space:]]*\"[a-z0-9_.-]+ " "$SRC"/tests/unit/*.c |
		sed -E 's/.*"([a-z0-9_.-]+) $/\1/' | sort -u)
	[ -n "$cmds" ] || bad "no command found in the unit tests' system() calls"
	for c in $cmds; do
		pkg=$(pkg_of "$c")
		if [ -z "$pkg" ]; then
			bad "unit tests call $c: no package for it here"
		elif [ "$(dpkg-query -W -f='${Essential}' "$pkg")" = yes ]; then
			ok "unit tests call $c: in $pkg, Essential"
		elif grep -qx "$pkg" <<<"$build_apt"; then
			ok "unit tests call $c: $pkg installed by the build stage"
		else
			bad "unit tests call $c: $pkg, not installed by the build stage"
		fi
	done
fi

# Libraries: NEEDED entries -> Debian packages -> in the runtime apt line.
runtime=$(awk '/^FROM debian:12-slim$/ {rt = 1} rt' <<<"$flat" | grep -oE 'apt-get install [^&]*' | tr ' ' '\n' | grep -vE '^-|^(apt-get|install)$')
for bin in "$BUILD_DIR/daemon/pwtuned" "$BUILD_DIR/cli/pwtune"; do
	for lib in $(readelf -d "$bin" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
		path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
		pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1)
		[ -z "$pkg" ] && pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
		case $lib in
		libasan.*|libubsan.*|liblsan.*|libtsan.*) continue ;;	# a sanitizer build
		esac
		case $pkg in
		libc6) ok "$(basename "$bin"): $lib is in the base image" ;;
		"") bad "$(basename "$bin"): no package for $lib" ;;
		*) grep -qx "$pkg" <<<"$runtime" && ok "$(basename "$bin"): $lib from $pkg" ||
			bad "$(basename "$bin"): $lib needs $pkg, not installed in the runtime stage" ;;
		esac
	done
done

# What the runtime stage copies from /staging exists in make install's
# tree, or the build stage makes it (install -d /staging/...) when the
# install puts nothing there.
D="$TMP/staging"
DESTDIR="$D" cmake --install "$BUILD_DIR" --prefix /usr >/dev/null 2>&1 || bad "cmake --install"
made=$(grep -oE 'install -d /staging[^ ]+' <<<"$build_stage" | sed 's|install -d /staging||')
for src in $(grep -oE 'COPY --from=build /staging[^ ]+' <<<"$flat" | sed 's|COPY --from=build /staging||'); do
	if [ -e "$D$src" ]; then
		ok "staged: $src"
	elif grep -qx -- "$src" <<<"$made"; then
		ok "staged: $src (made by the build stage: the install has none)"
	else
		bad "not staged: $src"
	fi
done

last=$(awk '/^FROM debian:12-slim$/ {rt = 1} rt' <<<"$flat")
grep -qE '^USER [a-z]' <<<"$last" && ! grep -qE '^USER (root|0)' <<<"$last" && ok "runs as a non-root user" || bad "USER"
grep -q 'VOLUME \["/var/lib/pwtuned"\]' <<<"$last" && grep -q 'PWTUNED_STATE_DIR=/var/lib/pwtuned' <<<"$last" &&
	ok "the state directory is a volume" || bad "VOLUME / PWTUNED_STATE_DIR"
grep -q 'HEALTHCHECK.*"/usr/sbin/pwtuned", "--health"' <<<"$last" && ! grep -q curl <<<"$last" &&
	ok "HEALTHCHECK: pwtuned --health, no curl" || bad "HEALTHCHECK"
finish
