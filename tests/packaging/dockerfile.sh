#!/usr/bin/env bash
# docker/Dockerfile, checked without a container engine: its build steps
# are make targets that exist; the runtime stage installs a package for
# every library pwtuned and pwtune link against directly; what it copies
# from the staged install exists there; it runs as a non-root user with
# the state directory as a volume and a health check that needs no curl.
. "$(dirname "$0")/../cli/lib.sh"
: "${BUILD_DIR:?BUILD_DIR must name the build tree}"
DF="$SRC/docker/Dockerfile"
flat=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$DF")

grep -q '^FROM debian:12-slim AS build' <<<"$flat" && [ "$(grep -c '^FROM debian:12-slim' <<<"$flat")" = 2 ] &&
	ok "two stages on debian:12-slim" || bad "stages: $(grep '^FROM' <<<"$flat")"
targets=$(grep '^RUN' <<<"$flat" | grep -oE 'make [a-z-]+' | awk '{print $2}' | sort -u)
[ -n "$targets" ] && ok "build steps call make targets: $(echo $targets)" || bad "no make target in the build stage"
for t in $targets; do
	make -n -C "$SRC" "$t" BUILD="$TMP/b" >/dev/null 2>&1 && ok "make $t exists" || bad "make $t does not"
done

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

# What the runtime stage copies from /staging exists in make install's tree.
D="$TMP/staging"
DESTDIR="$D" cmake --install "$BUILD_DIR" --prefix /usr >/dev/null 2>&1 || bad "cmake --install"
for src in $(grep -oE 'COPY --from=build /staging[^ ]+' <<<"$flat" | sed 's|COPY --from=build /staging||'); do
	[ -e "$D$src" ] && ok "staged: $src" || bad "not staged: $src"
done

last=$(awk '/^FROM debian:12-slim$/ {rt = 1} rt' <<<"$flat")
grep -qE '^USER [a-z]' <<<"$last" && ! grep -qE '^USER (root|0)' <<<"$last" && ok "runs as a non-root user" || bad "USER"
grep -q 'VOLUME \["/var/lib/pwtuned"\]' <<<"$last" && grep -q 'PWTUNED_STATE_DIR=/var/lib/pwtuned' <<<"$last" &&
	ok "the state directory is a volume" || bad "VOLUME / PWTUNED_STATE_DIR"
grep -q 'HEALTHCHECK.*"/usr/sbin/pwtuned", "--health"' <<<"$last" && ! grep -q curl <<<"$last" &&
	ok "HEALTHCHECK: pwtuned --health, no curl" || bad "HEALTHCHECK"
finish
