#!/usr/bin/env bash
# make cross-aarch64: builds the engine, layers and models for aarch64 with
# Debian's cross compiler (g++-aarch64-linux-gnu; only the portable kernels
# exist there) with the release build's flags, links the kernel tests
# (tests/engine/kernels_test.cc, isa_test.cc, portable_kernels_test.cc and the
# int8 and bf16 products' tests; GoogleTest from /usr/src/googletest) statically, and runs them under
# qemu-aarch64 (qemu-user). Not part of make test: it takes minutes.
#   tests/cross/aarch64.sh [BUILD_DIR]   (default build-aarch64; needs build/generated)
set -euo pipefail
out=${1:-build-aarch64}
gen=build/generated
[ -f $gen/engine/version.h ] || { echo "run make build first (for $gen)" >&2; exit 1; }
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v $tool > /dev/null || {
    echo "missing $tool: apt-get install g++-aarch64-linux-gnu qemu-user" >&2; exit 1; }
done
gtest=/usr/src/googletest/googletest
cxx=(aarch64-linux-gnu-g++ -std=c++17 -O3 -DNDEBUG -Wall -Wextra -ffp-contract=off -fopenmp
     -I. -I$gen -I/usr/include/eigen3 -I$gtest/include -I$gtest)
mkdir -p $out/obj
compile() {  # source -> object (GoogleTest's once, phasor's every time)
  local o=$out/obj/$(echo "$1" | tr / _).o
  local extra=()  # engine/CMakeLists.txt's per-file flags
  [[ "$1" == engine/kernels/vector_math_portable.cc ]] && extra=(-fno-trapping-math -fno-thread-jumps)
  [[ "$1" == /usr/src/* && -f "$o" ]] || "${cxx[@]}" "${extra[@]}" -c "$1" -o "$o"
  echo "$o"
}
engine=()
for f in $(ls engine/*.cc engine/kernels/*.cc | grep -v '_avx'); do engine+=("$(compile $f)"); done
for f in layers/*.cc models/*.cc; do compile $f > /dev/null; done
echo "aarch64: engine, layers and models compiled in $out/obj"
tests=()
for f in tests/engine/kernels_test.cc tests/engine/isa_test.cc tests/engine/gemm_int8_test.cc \
         tests/engine/gemm_bf16_test.cc tests/engine/portable_kernels_test.cc \
         $gtest/src/gtest-all.cc $gtest/src/gtest_main.cc; do
  tests+=("$(compile $f)")
done
"${cxx[@]}" "${engine[@]}" "${tests[@]}" -static -o $out/kernel_tests 2> $out/link.log
qemu-aarch64 $out/kernel_tests --gtest_brief=1
