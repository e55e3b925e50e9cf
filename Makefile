# Two commands do everything on a fresh Debian 12 machine: `make demo` and `make test`.
#
# make demo   build, then show the PE table, its heatmap, the toy encoder and cached
#             against recomputed PE measured on this machine, with its chart
#             (tools/demo.sh; the pictures go to ${TMPDIR:-/tmp}/phasor-demo/).
# make test   the three builds (release, ASan + UBSan, fuzz) side by side in one
#             pool of JOBS jobs, then the release build's tests, the tests under
#             ASan + UBSan, and every fuzz target for FUZZ_SHORT_SECONDS (what CI
#             runs); it ends with a table of each stage's time.
# make test-release   the release build's tests alone.
# make asan   the tests under ASan + UBSan (build-asan/).
# make fuzz-short / make fuzz   every fuzz target for FUZZ_SHORT_SECONDS / FUZZ_SECONDS (build-fuzz/).
# make tsan   the concurrency tests under ThreadSanitizer (build-tsan/).
# make tidy   clang-tidy's house rule on every source file of build/: no function
#             over 80 lines or 6 parameters.
# make cross-aarch64   the engine, layers and models built for aarch64, the kernel
#             tests under qemu-aarch64 (build-aarch64/; tests/cross/aarch64.sh).
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
TSAN_BUILD ?= build-tsan
JOBS ?= $(shell nproc)
# How each build is told its parallelism: make test empties it, so that the
# builds running side by side take their jobs from one pool of JOBS (make's
# jobserver, which cmake --build's make joins).
BUILD_JOBS ?= -j $(JOBS)
CMAKE_FLAGS ?=
# ccache (Debian's, from tools/install-deps.sh) when present: a source compiled
# before with the same flags, in this folder or in another clone, costs nothing.
CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
LAUNCHER := -DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE) -DCMAKE_C_COMPILER_LAUNCHER=$(CCACHE)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
endif
FUZZ_SECONDS ?= 60
FUZZ_SHORT_SECONDS ?= 30
FUZZ_TARGETS := safetensors config tokens model text
SHELL := /bin/bash
# The builds below run make again (through cmake --build): no "Entering
# directory" lines around their output.
MAKEFLAGS += --no-print-directory

.PHONY: all deps configure build demo test test-release release-tests asan asan-build asan-tests \
        fuzz-build fuzz-run fuzz-short fuzz tsan bench format clean cross-aarch64 tidy stage-table

all: build

# NO_DEPS=1: the packages were checked already (make test checks them once for
# the builds it runs side by side).
deps:
	@[ -n "$(NO_DEPS)" ] || bash tools/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPHASOR_NATIVE=OFF $(LAUNCHER) $(CMAKE_FLAGS) > $(BUILD).configure.log 2>&1 || \
	  { cat $(BUILD).configure.log; exit 1; }

build: configure
	+@cmake --build $(BUILD) $(BUILD_JOBS)

demo: build
	@bash tools/demo.sh $(BUILD)/bin/phasor

# The three builds side by side (their compilers fill each other's idle cores:
# a build's configure and links run one job at a time), then the release tests,
# the sanitizer build's tests and the short fuzz runs. Each stage stops the run
# on its first failure; the table of stage times is printed either way.
# make tsan stays separate: it builds with clang and LLVM's libomp.
# tests/CMakeLists.txt lists which tests run in which build, and why.
STAGES := $(abspath $(BUILD)).stages
test: deps
	+@echo "start $$(date +%s) $$(cut -d' ' -f1-3 /proc/loadavg)" > $(STAGES); \
	$(MAKE) -j $(JOBS) NO_DEPS=1 BUILD_JOBS= stage-build stage-asan-build stage-fuzz-build && \
	$(MAKE) stage-release-tests && $(MAKE) stage-asan-tests && $(MAKE) stage-fuzz-run; \
	rc=$$?; $(MAKE) stage-table; exit $$rc

# stage-NAME: make NAME, its start and end in seconds appended to $(STAGES).
stage-%:
	+@s=$$(date +%s); $(MAKE) NO_DEPS=1 $*; rc=$$?; \
	echo "$* $$s $$(date +%s) $$rc" >> $(STAGES); exit $$rc

# The stages of the last make test: start and end, in seconds from its start.
stage-table:
	@echo "make test on $$(nproc) cores of $$(lscpu | sed -n 's/^Model name: *//p'), $$(date -u '+%F %H:%M') UTC"
	@awk -v now=$$(date +%s) -v load="$$(cut -d' ' -f1-3 /proc/loadavg)" \
	  'NR == 1 { t0 = $$2; l0 = $$3 " " $$4 " " $$5; next } \
	   { n[$$1] = $$1; printf "  %-14s %5d s .. %5d s  %5d s%s\n", $$1, $$2 - t0, $$3 - t0, $$3 - $$2, \
	     ($$4 != 0 ? "  FAILED" : "") } \
	   END { printf "  %-14s %22d s  (%.1f min; load average %s at the start, %s at the end)\n", \
	         "total", now - t0, (now - t0) / 60, l0, load }' $(STAGES)

test-release: build
	+@$(MAKE) release-tests

# ctest -j JOBS: ParallelTasks' workers sleep between calls, so tests side by
# side share the cores without spinning; COST (tests/CMakeLists.txt) starts the
# long ones first.
release-tests:
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Tests under AddressSanitizer + UndefinedBehaviorSanitizer, in their own build directory.
asan: asan-build
	+@$(MAKE) asan-tests

asan-build: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPHASOR_SANITIZE=ON \
	  -DPHASOR_NATIVE=OFF -DPHASOR_BUILD_BENCH=OFF $(LAUNCHER) > $(ASAN_BUILD).configure.log 2>&1 || \
	  { cat $(ASAN_BUILD).configure.log; exit 1; }
	+@cmake --build $(ASAN_BUILD) $(BUILD_JOBS) --target phasor_tests phasor

asan-tests:
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) 2>&1 | tee ctest.log; exit $${PIPESTATUS[0]}

# The house rule of .clang-tidy's function size on every source file: every
# finding is printed and the target fails if there is one. clang reads the
# build's compile commands without the options only GCC knows.
TIDY_CHECKS := -*,readability-function-size
tidy: build
	@mkdir -p $(BUILD)/tidy && sed 's/ -fno-thread-jumps//g' $(BUILD)/compile_commands.json \
	  > $(BUILD)/tidy/compile_commands.json
	@run-clang-tidy -p $(BUILD)/tidy -quiet -j $(JOBS) -checks='$(TIDY_CHECKS)' \
	  '^$(CURDIR)/(engine|layers|tokenizers|models|commands|serving|tools|python|bench|tests)/' > $(BUILD)/tidy.log 2>&1 || true
	@sed 's/\x1b\[[0-9;]*m//g' $(BUILD)/tidy.log | grep -E '(warning|error):' | sort -u; \
	  ! grep -qE '(warning|error):' $(BUILD)/tidy.log

# Cross build for aarch64 (portable kernels only) and its kernel tests under qemu.
cross-aarch64: deps
	@bash tests/cross/aarch64.sh build-aarch64

# libFuzzer targets: clang, ASan + UBSan, their own build directory.
fuzz-build: deps
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DPHASOR_FUZZ=ON -DPHASOR_FUZZ_SECONDS=$(FUZZ_SHORT_SECONDS) -DPHASOR_NATIVE=OFF \
	  -DPHASOR_BUILD_BENCH=OFF $(LAUNCHER) > $(FUZZ_BUILD).configure.log 2>&1 || \
	  { cat $(FUZZ_BUILD).configure.log; exit 1; }
	+@cmake --build $(FUZZ_BUILD) $(BUILD_JOBS) --target phasor_fuzzers

# Each target for FUZZ_SHORT_SECONDS (CI smoke run, as ctest tests fuzz_*), JOBS
# targets at a time.
fuzz-short: fuzz-build
	+@$(MAKE) fuzz-run

fuzz-run:
	@cd $(FUZZ_BUILD) && ctest -R '^fuzz_' --output-on-failure -j $(JOBS) 2>&1 | tee ctest.log; \
	  exit $${PIPESTATUS[0]}

# Each target for FUZZ_SECONDS, one after the other, growing $(FUZZ_BUILD)/corpus/<target>.
# Findings land in $(FUZZ_BUILD)/artifacts/; copy them to tests/fuzz/regressions/<target>_<what>.
fuzz: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/tests/fuzz/corpus/$$t $(FUZZ_BUILD)/tests/fuzz/artifacts; \
	  ml=4096; [ $$t = model ] && ml=16384; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_BUILD)/bin/$${t}_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=$$ml -timeout=10 \
	    -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/tests/fuzz/artifacts/$$t- \
	    $(FUZZ_BUILD)/tests/fuzz/corpus/$$t tests/fuzz/corpus/$$t 2>&1 | \
	    grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|Test unit written' || true; \
	  test $${PIPESTATUS[0]} -eq 0; \
	done

# The concurrency tests under ThreadSanitizer, built with clang and LLVM's
# libomp: its Archer tool (libarcher.so, in libomp-dev) tells TSan about
# OpenMP's barriers, so callers can run their own OpenMP teams. (g++'s libgomp
# is not instrumented: its barriers look like races.)
ARCHER ?= $(lastword $(wildcard /usr/lib/llvm-*/lib/libarcher.so))
tsan: deps
	@test -n "$(ARCHER)" || { echo "make tsan: libarcher.so not found (package libomp-dev)"; exit 1; }
	@CC=clang CXX=clang++ cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DPHASOR_NATIVE=OFF -DPHASOR_BUILD_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
	  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread > $(TSAN_BUILD).configure.log 2>&1 || \
	  { cat $(TSAN_BUILD).configure.log; exit 1; }
	@cmake --build $(TSAN_BUILD) -j $(JOBS) --target phasor_tests
	@OMP_TOOL_LIBRARIES=$(ARCHER) TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ignore_noninstrumented_modules=1" \
	  $(TSAN_BUILD)/bin/phasor_tests --gtest_filter='Concurrency*'

bench: build
	@$(BUILD)/bin/phasor_bench

format:
	@find engine layers tokenizers models commands serving tools tests bench python -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	@rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(TSAN_BUILD) $(STAGES) \
	  $(BUILD).configure.log $(ASAN_BUILD).configure.log $(FUZZ_BUILD).configure.log \
	  $(TSAN_BUILD).configure.log
