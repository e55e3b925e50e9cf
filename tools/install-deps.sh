#!/usr/bin/env bash
# Installs the Debian packages phasor builds with, only those that are missing.
# As root it runs apt-get; otherwise it prints the command to run.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  ccache             # make: sources compiled before (any clone) are not compiled again
  libeigen3-dev      # matrices, vectorised rows
  libdnnl-dev ocl-icd-opencl-dev  # oneDNN: the amx target's bf16 and int8 products (its CMake package finds OpenCL)
  libomp-dev         # OpenMP runtime (libgomp comes with g++)
  libcli11-dev       # command line
  nlohmann-json3-dev # config.json, safetensors headers, --json output
  libicu-dev         # tokenizers: Unicode categories, case mapping, normalisation forms
  libpcre2-dev       # tokenizers: the pre-tokenizers' regular expressions
  libsentencepiece-dev  # tokenizers: SentencePiece model files
  libsimdjson-dev    # tokenizers: tokenizer.json read fast (a 30 MB vocabulary)
  libcpp-httplib-dev # phasor serve: HTTP/1.1 server
  wrk                # bench/serve.sh: the load generator
  libgd-dev          # PNG pictures: heatmaps and charts with text (libpng underneath)
  libgtest-dev       # tests
  libbenchmark-dev   # benchmarks
  clang libclang-rt-14-dev  # make fuzz (libFuzzer) and make tsan
  pybind11-dev python3-dev  # the Python module
  python3-numpy python3-pytest python3-distributed  # its arrays, tests (pytest) and Dask tools
  qemu-user          # make test runs the CLI as CPUs without AVX-512 (tests/qemu)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" -ne 0 ]; then
  echo "phasor: missing packages: ${missing[*]}" >&2
  echo "run as root: apt-get update && ${cmd[*]}" >&2
  exit 1
fi
echo "phasor: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
"${cmd[@]}" -qq
