# slaw: `make test` installs what it needs (Debian packages, as root), builds and runs every test.
#       `make sanitize` runs the concurrency tests under ThreadSanitizer and all tests under ASan+UBSan.
SHELL := /bin/bash
.ONESHELL:
.SHELLFLAGS := -eu -o pipefail -c

JOBS ?= $(shell nproc)
CXX_GCC ?= g++
CXX_CLANG ?= clang++-19
TEST_PACKAGES := build-essential cmake ninja-build libgtest-dev libgmock-dev clang-19 libclang-rt-19-dev \
  libtbb-dev libomp-19-dev libssl-dev python3 python3-matplotlib valgrind gdb libhwloc-dev pkg-config hwloc file \
  libopenmpi-dev openmpi-bin

.PHONY: all deps build test test-clang sanitize tsan asan clean examples-check bench stress package package-check

all: build

# Installs missing Debian packages (idempotent: does nothing when all are present).
deps:
	@missing=""
	for p in $(TEST_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done
	if [ -n "$$missing" ]; then
	  if [ "$$(id -u)" != 0 ]; then echo "make deps: need root to install:$$missing" >&2; exit 1; fi
	  apt-get update -qq
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing
	fi

build: deps
	@cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$(CXX_GCC) -DSLAW_BUILD_TESTS=ON
	cmake --build build -j $(JOBS)

test: build
	@(cd build && ctest -j $(JOBS) --output-on-failure)
	$(MAKE) --no-print-directory examples-check BUILD=build
	$(MAKE) --no-print-directory package-check

# Every example is correct under wf, hf and dyn with 1, 2 and 8 workers (places_sor also with places, on
# this machine's cores and on a synthetic 8-core machine, and once bound).
examples-check:
	@for p in wf hf dyn; do for w in 1 2 8; do
	  SLAW_POLICY=$$p SLAW_WORKERS=$$w $(BUILD)/examples/fib 25 >/dev/null
	  SLAW_POLICY=$$p SLAW_WORKERS=$$w $(BUILD)/examples/spawn_loop 100000 >/dev/null
	  SLAW_POLICY=$$p SLAW_WORKERS=$$w $(BUILD)/examples/pdfs 200 >/dev/null
	  SLAW_POLICY=$$p SLAW_WORKERS=$$w $(BUILD)/examples/places_sor 300 4 >/dev/null
	  SLAW_POLICY=$$p SLAW_WORKERS=$$w SLAW_PLACES=cores $(BUILD)/examples/places_sor 300 4 >/dev/null 2>&1
	  SLAW_POLICY=$$p SLAW_WORKERS=$$w SLAW_PLACES=cores SLAW_TOPOLOGY='synthetic:pack:2 core:4 pu:2' \
	    $(BUILD)/examples/places_sor 300 4 >/dev/null 2>&1
	done; done
	SLAW_PLACES=cores SLAW_BIND=close SLAW_STATS=1 $(BUILD)/examples/places_sor 300 4 >/dev/null 2>&1
	echo "examples: 55 passed, 0 failed"

test-clang: deps
	@cmake -S . -B build-clang -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$(CXX_CLANG) -DSLAW_BUILD_TESTS=ON
	cmake --build build-clang -j $(JOBS)
	(cd build-clang && ctest -j $(JOBS) --output-on-failure)

tsan: deps
	@cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=$(CXX_CLANG) -DSLAW_SANITIZE=thread -DSLAW_BUILD_BENCH=OFF
	cmake --build build-tsan -j $(JOBS)
	(cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 SLAW_TEST_SCALE=$${SLAW_TEST_SCALE_SAN:-0.2} \
	  ctest -j $(JOBS) --output-on-failure -L concurrency)

asan: deps
	@cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=$(CXX_CLANG) -DSLAW_SANITIZE=address -DSLAW_BUILD_BENCH=OFF
	cmake --build build-asan -j $(JOBS)
	(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 SLAW_TEST_SCALE=$${SLAW_TEST_SCALE_SAN:-0.2} \
	  ctest -j $(JOBS) --output-on-failure)
	$(MAKE) --no-print-directory examples-check BUILD=build-asan

sanitize: tsan asan

# The random programs of tests/random at 10^5 programs per configuration (Release, GCC), every
# configuration in its own process; logs in build/stress-<config>.log. Not part of CI: it takes long.
# The SLAW_RANDOM_* variables (tests/random/test_random_programs.cpp) pass through, e.g. FEATURES.
STRESS_PROGRAMS ?= 100000
stress: build
	@configs=$$(build/tests/test_random_programs --gtest_list_tests | sed -n 's|^  MatchTheOracle/\([A-Za-z0-9_]*\).*|\1|p')
	echo "stress: $(STRESS_PROGRAMS) programs on each of" $$configs
	printf '%s\n' $$configs | xargs -P $(JOBS) -I{} sh -c 'if SLAW_RANDOM_PROGRAMS=$(STRESS_PROGRAMS) \
	  build/tests/test_random_programs --gtest_filter="*/{}" >build/stress-{}.log 2>&1; \
	  then echo "{}: passed"; else echo "{}: FAILED ($$(grep -m1 -o "seed [0-9]*" build/stress-{}.log)), see build/stress-{}.log"; \
	  exit 1; fi'

# The benchmark comparison (the README's main command): Release build with clang-19, the default suite at
# 1 and 2 workers, every variant alternating, median of BENCH_REPS repetitions; prints the table and
# writes bench/results/suite/latest.{json,md} and plots.
# Ctrl-C stops slaw-bench, which writes the configurations it completed (marked "interrupted") and exits
# with 130; the recipe's shell ignores that Ctrl-C (trap) so that report.py still prints their table,
# then make stops with slaw-bench's status (1 for a failed oracle: the report shows it too).
BENCH_REPS ?= 5
BENCH_ARGS ?= --size default --workers 1,2
bench: deps
	@cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$(CXX_CLANG) -DSLAW_BUILD_TESTS=OFF
	cmake --build build-bench -j $(JOBS) --target slaw-bench
	mkdir -p bench/results/suite
	@rm -f bench/results/suite/latest.json
	trap true INT; build-bench/bin/slaw-bench $(BENCH_ARGS) --reps $(BENCH_REPS) --json bench/results/suite/latest.json \
	  && status=0 || status=$$?; if [ -f bench/results/suite/latest.json ]; then /usr/bin/python3 bench/scripts/report.py \
	  bench/results/suite/latest.json --md bench/results/suite/latest.md --plots bench/results/suite; fi; exit $$status

# slaw used from outside its tree (tests/package/check.sh, in a temporary directory): installed into a
# prefix and found by find_package and by pkg-config, with both compilers, static and shared; as a
# subproject; and from the Debian package (installed with dpkg -i and removed again when root).
package-check: deps
	@CXX_GCC=$(CXX_GCC) CXX_CLANG=$(CXX_CLANG) JOBS=$(JOBS) tests/package/check.sh

# The Debian package build-package/slaw_<version>_<arch>.deb (prefix /usr): the static library, its
# headers, CMake and pkg-config files, slaw-bench and slaw-trace. docs/guide/install.md.
package: deps
	@cmake -S . -B build-package -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$(CXX_GCC) \
	  -DCMAKE_INSTALL_PREFIX=/usr -DSLAW_BUILD_TESTS=OFF -DSLAW_BUILD_EXAMPLES=OFF -DSLAW_BUILD_BENCH=ON
	cmake --build build-package -j $(JOBS)
	(cd build-package && cpack -G DEB)

clean:
	@rm -rf build build-clang build-tsan build-asan build-bench build-package
