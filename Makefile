# Two commands do everything on a fresh Debian 12 machine: `make demo` and `make test`.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo test asan bench format clean

all: build

deps:
	@bash tools/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) > $(BUILD).configure.log 2>&1 || \
	  { cat $(BUILD).configure.log; exit 1; }

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash tools/demo.sh $(BUILD)/bin/phasor

test: build
	@cd $(BUILD) && ctest --output-on-failure -j 1

# Tests under AddressSanitizer + UndefinedBehaviorSanitizer, in their own build directory.
asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPHASOR_SANITIZE=ON \
	  -DPHASOR_NATIVE=OFF > $(ASAN_BUILD).configure.log 2>&1 || { cat $(ASAN_BUILD).configure.log; exit 1; }
	@cmake --build $(ASAN_BUILD) -j $(JOBS) --target phasor_tests phasor
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j 1

bench: build
	@$(BUILD)/bin/phasor_bench

format:
	@find engine layers models tools tests bench -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	@rm -rf $(BUILD) $(ASAN_BUILD) $(BUILD).configure.log $(ASAN_BUILD).configure.log
