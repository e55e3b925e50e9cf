#!/usr/bin/env bash
# Takes every figure that docs/benchmarks.md publishes, in one go, into OUT
# (default /tmp/phasor-figures): the machine, the PE side-by-side runs, the
# benchmark suite, the long embedding pass, the encoder against ONNX Runtime and
# the peak memory of long sequences. A benchmark, not a test: run it on a quiet
# machine (`uptime` load below 1, nothing else of yours running); each step
# records the load average before and after it in OUT/load.txt.
#
#   bench/figures.sh [--out DIR] [--runs 3] [--skip-ort] [--pe-only]
#
# --pe-only takes the positional-encoding figures alone (machine, limits and
# the bench-pe runs: about ten minutes).
#
# Needs a Release build (make build); the ONNX Runtime step also needs what
# bench/ort_compare.sh needs (node + npm, python3 with torch and numpy).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
bin="$root/build/bin"
out=/tmp/phasor-figures
runs=3
ort=1
pe_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --skip-ort) ort=0 ;;
    --pe-only) pe_only=1 ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "figures: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$bin/phasor" ] || { echo "figures: no $bin/phasor (make build first)" >&2; exit 1; }
mkdir -p "$out"
: >"$out/load.txt"

load() { cut -d' ' -f1-3 /proc/loadavg; }
# step NAME COMMAND...: runs COMMAND with stdout to OUT/NAME, recording the load.
step() {
  local name="$1"
  shift
  local before
  before="$(load)"
  echo "figures: $name" >&2
  "$@" >"$out/$name"
  echo "$name: load average before $before, after $(load)" >>"$out/load.txt"
}

{
  lscpu | grep -E '^(Model name|CPU family|Model|CPU\(s\)|Thread|Core|L1d|L2|L3)'
  grep -m1 -o 'avx512[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' '
  echo
  free -g | head -2
  "$bin/phasor" --version
} >"$out/machine.txt"

# Physical limits: float32 peak and the stream-write bound.
step peak.json "$bin/phasor_bench" --benchmark_filter='Fp32Peak|StreamWrite' \
  --benchmark_min_time=0.3 --benchmark_format=json

# Cached versus recomputed PE, side by side, at encoder and long lengths; the
# narrow and wide rows at 4K and 1M; RoPE applied to q and k.
for r in $(seq "$runs"); do
  step "bench_pe_$r.json" "$bin/phasor" bench-pe --lengths 512,1K,4K,16K,64K,256K,1M \
    --min-seconds 0.3 --json
  for d in 64 4096; do
    step "bench_pe_d${d}_$r.json" "$bin/phasor" bench-pe --d-model "$d" --lengths 4K,1M \
      --min-seconds 0.3 --json
  done
  step "bench_pe_rope_$r.json" "$bin/phasor" bench-pe --kind rope \
    --lengths 512,1K,4K,16K,64K,256K,1M --min-seconds 0.3 --json
done
if [ "$pe_only" = 1 ]; then
  echo "figures: done (PE only); see $out (load averages in $out/load.txt)" >&2
  exit 0
fi

# One pass over 10^8 tokens (peak memory with /usr/bin/time).
step embed_1e8.json /usr/bin/time -v -o "$out/embed_1e8.time" "$bin/phasor" embed \
  --seq-len 100000000 --d-model 512 --json

# The embed chunk: the default (8 MiB of output) against 1 MiB chunks.
for chunk in 0 512; do
  args=(--seq-len 4M --d-model 512 --repeat 3 --json)
  [ "$chunk" = 0 ] || args+=(--chunk "$chunk")
  step "embed_chunk_$chunk.json" "$bin/phasor" embed "${args[@]}"
done

# Python against the CLI, and two Python threads sharing one model.
if /usr/bin/python3 -c "import numpy" 2>/dev/null && [ -d "$root/build/python" ]; then
  step python_overhead.json env PYTHONPATH="$root/build/python" /usr/bin/python3 \
    "$here/python_overhead.py" --repeat 30 --json
fi

# The benchmark suite's PE kernels.
step suite.json "$bin/phasor_bench" --benchmark_filter='Pe|StreamWrite|Linear' \
  --benchmark_min_time=0.2 --benchmark_format=json

# Peak memory of long sequences through the whole encoder (d512/8h/6L).
model="$out/d512"
[ -f "$model/model.safetensors" ] || "$bin/phasor" make-toy --out "$model" --vocab 32000 \
  --d-model 512 --n-heads 8 --n-layers 6 --d-ff 2048 >/dev/null
python3 -c "
import random; r = random.Random(7)
print(' '.join(str(r.randrange(1, 32000)) for _ in range(16384)))" >"$out/tokens_16k.txt"
step encode_16k.json /usr/bin/time -v -o "$out/encode_16k.time" "$bin/phasor" encode \
  --model "$model" --tokens-file "$out/tokens_16k.txt" --threads 2 --json

# The kernels' targets against each other (engine/cpu.h): the d512 encoder on
# 1 × 512 tokens in alternating rounds, and PE at 4K and 1M on avx2.
python3 -c "
import random; r = random.Random(5)
print(' '.join(str(r.randrange(1, 32000)) for _ in range(512)))" >"$out/tokens_512.txt"
isas=""
for t in avx512 avx2 portable; do
  "$bin/phasor" --isa "$t" --version >/dev/null 2>&1 && isas="$isas $t"
done
for r in $(seq "$runs"); do
  for t in $isas; do
    step "isa_${t}_$r.json" "$bin/phasor" --isa "$t" encode --model "$model" \
      --tokens-file "$out/tokens_512.txt" --threads 2 --repeat 10 --json
  done
done
if "$bin/phasor" --isa avx2 --version >/dev/null 2>&1; then
  step bench_pe_avx2.json "$bin/phasor" --isa avx2 bench-pe --lengths 4K,1M --min-seconds 0.3 \
    --json
fi

# The encoder against ONNX Runtime, runs times.
if [ "$ort" = 1 ]; then
  for r in $(seq "$runs"); do
    step "ort_$r.txt" "$here/ort_compare.sh" --phasor "$bin/phasor" --work "$out/ort-work" \
      --rounds 3 --repeat 10
  done
fi
# The limits again: another tenant of the host can slow a run without showing
# in the load average, and a disturbed peak only reads low, so the report
# takes the higher of the two.
step peak_end.json "$bin/phasor_bench" --benchmark_filter='Fp32Peak|StreamWrite' \
  --benchmark_min_time=0.3 --benchmark_format=json
echo "figures: done; see $out (load averages in $out/load.txt)" >&2
