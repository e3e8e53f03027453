# pwtune: the two commands of the README, and the rest.
#
#   make run        install what is missing, build, start pwtune on this host
#   make test       install, build with -Werror, run every test through ctest
#   make test-asan  the same suite built with AddressSanitizer and UBSan
#   make build | bench | bench-stacks | deps | probe-deps | stack-deps | clean
#
# `make deps` installs the Debian packages the project needs when they are
# missing: as root with apt-get, otherwise it prints the command to run.

BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
STATE_DIR  ?= $(CURDIR)/var
PORT       ?= 8421
# make run MEMORY_MAX=256MiB: the daemon's memory budget (PWTUNED_MEMORY_MAX)
MEMORY_MAX ?=

# Build tools and libraries (make build, make run, the container's build
# stage); then what the tests compare against or check with: Debian's
# argon2 command, sqlite3, curl and wrk, the snippet checkers php -l and
# gofmt, cryptsetup (bench/accuracy), Chromium (the dashboard tests),
# systemd-analyze and systemd-socket-activate, man (the manual pages),
# PostgreSQL (a throw-away server for the fleet store's tests), promtool
# (prometheus: api.metrics checks /metrics with it).
BUILD_PACKAGES := build-essential cmake pkg-config \
	libargon2-dev libsodium-dev libjansson-dev libmicrohttpd-dev \
	libsqlite3-dev libpq-dev libcrypt-dev libjs-chart.js
TEST_PACKAGES := argon2 sqlite3 curl wrk php-cli golang-go cryptsetup-bin \
	chromium systemd man-db groff-base clang libclang-rt-14-dev valgrind \
	slowhttptest gnuplot-nox postgresql prometheus
# packaging.container: the image built and run for real, without a
# registry (a debootstrap base, podman with runc).
TEST_PACKAGES += podman debootstrap runc
# The runtimes the stack probes time (docs/STACKS.md): PHP (password_hash
# and the sodium extension, in php-cli), Debian's Python bindings for
# /usr/bin/python3, Go with x/crypto/argon2 for GOPATH builds, a JDK with
# BouncyCastle. Node's argon2 comes from npm (make probe-deps).
STACK_PACKAGES := php-cli python3-argon2 python3-nacl golang-go \
	golang-golang-x-crypto-dev default-jdk-headless libbcprov-java

PREFIX  ?= /usr/local
DESTDIR ?=

.PHONY: all deps deps-build e2e-deps probe-deps stack-deps build run test \
	test-asan \
	install fuzz bench bench-seed bench-accuracy bench-stacks clean

all: build

# install_missing PACKAGES, SHELL-SNIPPET, HINT: apt-get install what dpkg
# does not have (the snippet may add to $$missing; HINT, when not root,
# follows the command to run).
define install_missing
	@missing=""; \
	for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | \
			grep -q '^install ok installed$$' || missing="$$missing $$p"; \
	done; \
	$(2) \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "pwtune needs these Debian packages:$$missing"; \
		echo "install them with:"; \
		echo "  sudo apt-get update && sudo apt-get install -y$$missing"; \
		$(if $(3),echo "$(strip $(3))";) \
		exit 1; \
	fi; \
	echo "installing:$$missing"; \
	flock $(APT_LOCK) sh -c 'apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "$$@"' install $$missing
endef

# make -j runs deps and deps-build side by side: one apt-get at a time,
# under a lock on this Makefile (it exists wherever make runs, the
# container's build stage too; nothing is created).
APT_LOCK ?= $(CURDIR)/Makefile

deps-build:
	$(call install_missing,$(BUILD_PACKAGES),)

deps:
	$(call install_missing,$(BUILD_PACKAGES) $(TEST_PACKAGES) $(STACK_PACKAGES),\
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs npm"; \
	command -v python3 >/dev/null 2>&1 || missing="$$missing python3";)

# The browser tests' driver, playwright-core, from npm at the version
# tests/e2e/package-lock.json pins (Chromium itself is Debian's).
E2E_DIR := tests/e2e
e2e-deps: deps
	@if [ ! -f $(E2E_DIR)/node_modules/playwright-core/package.json ] || \
	   ! cmp -s $(E2E_DIR)/package-lock.json \
	     $(E2E_DIR)/node_modules/.pwtune-lock 2>/dev/null; then \
		echo "installing playwright-core (npm ci in $(E2E_DIR))"; \
		cd $(E2E_DIR) && npm ci --no-audit --no-fund --loglevel=error && \
		cp package-lock.json node_modules/.pwtune-lock; \
	fi

# The client runtimes the probes time (STACK_PACKAGES, Node and npm), and
# the node stack's probe: the argon2 npm package at the version
# engine/probes/node/package-lock.json pins (it ships prebuilt binaries).
# make run installs them (STACKS=no does not: a runtime already here is
# still timed, a missing one's stack is answered from its library and
# says so); make test through probe-deps.
PROBE_NODE_DIR := engine/probes/node
stack-deps:
	$(call install_missing,$(STACK_PACKAGES),\
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm";,\
	(these are the client runtimes pwtune times: make run STACKS=no \
	runs without installing them))
	@if [ ! -f $(PROBE_NODE_DIR)/node_modules/argon2/package.json ] || \
	   ! cmp -s $(PROBE_NODE_DIR)/package-lock.json \
	     $(PROBE_NODE_DIR)/node_modules/.pwtune-lock 2>/dev/null; then \
		echo "installing argon2 (npm ci in $(PROBE_NODE_DIR))"; \
		cd $(PROBE_NODE_DIR) && npm ci --no-audit --no-fund --loglevel=error && \
		cp package-lock.json node_modules/.pwtune-lock; \
	fi

# After deps (make -j too): one apt-get at a time.
probe-deps: deps
	@$(MAKE) --no-print-directory stack-deps

build: deps-build
	cmake -S . -B $(BUILD) -DWERROR=ON
	cmake --build $(BUILD) -j $(JOBS)

# make run: the client runtimes (stack-deps; STACKS=no skips them), then
# pwtuned in the foreground on 127.0.0.1:$(PORT) (8421; make run
# PORT=8422 for another), its store and token under ./var/. The first
# start measures this host (the quick profile, about 20 s: answers from
# then on; then the client runtimes' probes, about a minute in all:
# GET /readyz says "measuring": null once it is done).
# The runtimes first (make -j too): the build looks for go and javac.
STACKS ?= yes
run: $(if $(filter no,$(STACKS)),deps-build,stack-deps)
	@$(MAKE) --no-print-directory build
	@mkdir -p -m 700 '$(STATE_DIR)'
	@echo "pwtuned on http://127.0.0.1:$(PORT)/ (store and token in $(STATE_DIR)/; Ctrl-C stops it)"
	@$(if $(MEMORY_MAX),PWTUNED_MEMORY_MAX='$(subst ','\'',$(MEMORY_MAX))' )$(BUILD)/daemon/pwtuned --state-dir '$(STATE_DIR)' --listen 127.0.0.1:$(PORT) || { \
		rc=$$?; echo "make run: pwtuned exited with status $$rc (above). A second one beside a running pwtuned needs a port and a state directory of its own: make run PORT=8422 STATE_DIR=var2" >&2; exit $$rc; }

# Then the smoke fuzzing (FUZZ_SECONDS per target; 0 skips it).
test: deps build e2e-deps probe-deps
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@if [ "$(FUZZ_SECONDS)" != 0 ]; then $(MAKE) --no-print-directory fuzz; fi

test-asan: deps e2e-deps probe-deps
	cmake -S . -B $(ASAN_BUILD) -DWERROR=ON -DASAN=ON -DUBSAN=ON \
		-DCMAKE_BUILD_TYPE=Debug
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS)

# The benchmarks print their tables; see docs/BENCHMARKS.md.
bench: build
	$(BUILD)/bench/bench_backends
	$(BUILD)/bench/bench_fleet

# Do answers hold in the runtime that hashes? Each installed stack's
# runtime times the daemon's answer for 100, 250, 500 ms (about 5 minutes;
# not in `make bench`, which it would make several times longer).
bench-stacks: build probe-deps
	/usr/bin/python3 bench/stacks/run.py --pwtuned $(BUILD)/daemon/pwtuned

# The seed grid: m = 32 MiB .. 1 GiB x t = 1, 3, 6 (several minutes).
bench-seed: build
	$(BUILD)/bench/bench_backends -s

# Do recommendations hold when measured? Against cryptsetup (4 minutes).
bench-accuracy: build
	python3 bench/accuracy.py --pwtune $(BUILD)/cli/pwtune

# cmake --install: the programs, units, configuration, manual pages and
# completion under PREFIX, staged under DESTDIR (docs/OPERATIONS.md).
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# Fuzzing with libFuzzer (clang, ASan + UBSan): each target for
# FUZZ_SECONDS, starting from its corpus in tests/fuzz/corpus/ (new inputs
# go to $(FUZZ_BUILD)/corpus/; a crash is saved in $(FUZZ_BUILD)/crashes/
# and fails the target: copy it into the corpus once fixed).
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := phc config cgroup api
fuzz: deps
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DPWTUNE_FUZZ=ON -DASAN=ON \
		-DUBSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(FUZZ_BUILD) -j $(JOBS) \
		$(foreach t,$(FUZZ_TARGETS),--target fuzz_$(t))
	@mkdir -p $(FUZZ_BUILD)/crashes
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
		echo "fuzzing $$t for $(FUZZ_SECONDS) s"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(FUZZ_BUILD)/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
			-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_BUILD)/crashes/$$t- \
			$(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t \
			>$(FUZZ_BUILD)/fuzz_$$t.log 2>&1 || \
			{ tail -40 $(FUZZ_BUILD)/fuzz_$$t.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^Done' \
			$(FUZZ_BUILD)/fuzz_$$t.log | tr '\n' ' '; echo; \
	done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
