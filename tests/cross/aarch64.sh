#!/usr/bin/env bash
# make cross-aarch64: configures a CMake cross build for aarch64
# (cmake/aarch64-linux-gnu.cmake: Debian's g++-aarch64-linux-gnu, only the
# portable kernels exist there) with the release build's flags, builds the
# engine, layers and models and the kernel tests (tests/cross/CMakeLists.txt),
# and runs the tests under qemu-aarch64 (qemu-user). Not part of make test: it
# takes minutes.
#   tests/cross/aarch64.sh [BUILD_DIR]   (default build-aarch64)
set -euo pipefail
out=${1:-build-aarch64}
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v $tool > /dev/null || {
    echo "missing $tool: apt-get install g++-aarch64-linux-gnu qemu-user" >&2; exit 1; }
done
cmake -S . -B "$out" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release > "$out.configure.log" 2>&1 || { cat "$out.configure.log"; exit 1; }
cmake --build "$out" -j "$(nproc)" --target phasor_engine phasor_layers phasor_models \
  phasor_kernel_tests
echo "aarch64: engine, layers and models built in $out"
cd "$out" && ctest --output-on-failure
