#!/usr/bin/env bash
# Takes every figure that docs/benchmarks.md publishes, in one run, into OUT
# (default /tmp/phasor-figures), then writes docs/benchmarks.md, docs/machine.txt
# and README.md's block of measured results from it (bench/figures_report.py).
# A benchmark, not a test: run it on a quiet machine (`uptime` load below 1,
# nothing else running); each step's seconds and the load average before and
# after it go to OUT/steps.tsv, and the report quotes them.
#
#   bench/figures.sh [--out DIR] [--runs 3] [--quick] [--skip-ort] [--docs DIR]
#                    [--no-report]
#
# --runs N     rounds of every repeated measurement (bench-pe, the targets, ONNX
#              Runtime; default 3).
# --quick      a smoke run of the whole pipeline in a few minutes: one round,
#              tiny repetitions and sizes. Its figures mean nothing; its report
#              goes to OUT/docs (never to docs/) unless --docs says otherwise.
# --skip-ort   no ONNX Runtime steps (the encoder, precision and ragged
#              comparisons with it).
# --docs DIR   where benchmarks.md and machine.txt go (default: docs/ of the
#              repository, or OUT/docs with --quick). README.md's block is
#              updated only when DIR is the repository's docs/.
# --no-report  take the figures only.
#
# The steps in order: the machine's limits (float32 peak of every target the
# CPU has, the bfloat16 and int8 dot-product peaks, stream write), cached
# against recomputed PE (bench-pe: d_model 512, 64 and 4096, RoPE), long
# embedding passes, Python against the CLI, the benchmark suite, a 16K-token
# encode, 4K-token encodes, the CPU targets (the encoder at every precision,
# the products, bench-pe, each under --isa NAME), the encoder against ONNX
# Runtime at every precision, accuracy against PyTorch, ragged batches and
# corpora, and the limits again.
#
# Needs a Release build (make build) with the Python module (build/python),
# /usr/bin/python3 with numpy and torch; the ONNX Runtime steps need what
# bench/ort_compare.sh needs (node + npm, python3-onnx for int8); the Dask step
# needs python3-distributed (skipped without it).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
bin="$root/build/bin"
python="${PYTHON:-/usr/bin/python3}"
out=/tmp/phasor-figures
runs=3
ort=1
quick=0
docs=""
report=1
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --quick) quick=1 ;;
    --skip-ort) ort=0 ;;
    --docs) docs="$2"; shift ;;
    --no-report) report=0 ;;
    -h | --help) sed -n '2,35p' "$0"; exit 0 ;;
    *) echo "figures: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$runs" in '' | *[!0-9]* | 0) echo "figures: --runs must be a positive integer" >&2; exit 2 ;; esac
if [ ! -x "$bin/phasor" ] || [ ! -x "$bin/phasor_bench" ]; then
  echo "figures: no $bin/phasor or phasor_bench (make build first)" >&2
  exit 1
fi

# Sizes of the full run, and of the smoke run (--quick).
if [ "$quick" = 1 ]; then
  runs=1
  min_time=0.02          # phasor_bench --benchmark_min_time (seconds)
  pe_seconds=0.02        # bench-pe --min-seconds
  pe_lengths=4K,64K
  pe_wide_lengths=4K,16K
  embed_long=1M
  embed_chunk_len=256K
  python_repeat=3
  encode_long=1024
  encode_4096_repeat=1
  isa_repeat=1
  ort_rounds=1
  ort_repeat=1
  ort_cases="d256"
  ragged_rounds=1
  corpus_lines=1000
  budget_lines=100
  budgets="1K 2K"
  suite_filter='BM_(StreamWrite|PeOnTheFly|PeCached|PeDirect|EmbeddingPe)/[0-9]+/64/|BM_PackedLinear/512/512/2048/1/|BM_AttentionTile/128/'
else
  min_time=0.3
  pe_seconds=0.3
  pe_lengths=512,1K,4K,16K,64K,256K,1M
  pe_wide_lengths=4K,1M
  embed_long=100000000
  embed_chunk_len=4M
  python_repeat=30
  encode_long=16384
  encode_4096_repeat=3
  isa_repeat=10
  ort_rounds=3
  ort_repeat=10
  ort_cases="d512 d256 bert"
  ragged_rounds=5
  corpus_lines=100000
  budget_lines=2000
  budgets="1K 2K 4K 8K 16K"
  suite_filter='BM_(Pe|StreamWrite|EmbeddingPe|PackedLinear|AttentionTile)'
fi

# OUT holds one run: an earlier run there is removed first (its models and
# exports too, so that nothing of an older build is reused), and a folder of
# other files is refused.
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
  if [ ! -f "$out/run.txt" ]; then
    echo "figures: $out is not empty and holds no earlier run (run.txt); give another --out" >&2
    exit 2
  fi
  rm -rf "${out:?}"/*
fi
mkdir -p "$out"
printf 'step\tseconds\tload_before\tload_after\tcommand\n' >"$out/steps.tsv"

load() { cut -d' ' -f1-3 /proc/loadavg; }
# step NAME COMMAND...: runs COMMAND with stdout to OUT/NAME (stderr to
# OUT/NAME.err), recording its seconds, the load average around it and the
# command itself (the report quotes it).
step() {
  local name="$1"
  shift
  local before t0 t1 cmd
  before="$(load)"
  cmd="$(printf '%q ' "$@")"
  echo "figures: $name" >&2
  t0=$(date +%s.%N)
  if ! "$@" >"$out/$name" 2>"$out/$name.err"; then
    echo "figures: step $name failed; its stderr:" >&2
    cat "$out/$name.err" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  printf '%s\t%.1f\t%s\t%s\t%s\n' "$name" "$(awk "BEGIN {print $t1 - $t0}")" "$before" \
    "$(load)" "${cmd% }" >>"$out/steps.tsv"
}
run_start=$(date +%s)

# The machine: what lscpu, the kernel and the build say.
isas=""
for t in avx512 avx2 portable; do
  "$bin/phasor" --isa "$t" --version >/dev/null 2>&1 && isas="$isas $t"
done
isas="${isas# }"
default_isa="$("$bin/phasor" --version | sed -n 's/^isa: //p')"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
    git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "quick: $quick"
  echo "runs: $runs"
  echo "targets: $isas"
  echo "default target: $default_isa"
  echo "compiler: $(c++ --version | head -1)"
  echo "kernel: $(uname -sr)"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "load before: $(load)"
} >"$out/run.txt"
LC_ALL=C lscpu >"$out/lscpu.txt"
"$bin/phasor" --version >"$out/version.txt"

# The limits each figure is read against: the float32 peak of every target
# (PHASOR_ISA) on 1 and 2 threads, the bfloat16 and int8 dot-product peaks,
# and the stream-write bandwidth. Taken again at the end: a disturbed
# measurement only reads low, so the report takes the higher of the two.
limits() {
  local when="$1" t
  for t in $isas; do
    step "peak_${t}_$when.json" env PHASOR_ISA="$t" "$bin/phasor_bench" \
      --benchmark_filter='BM_Fp32Peak' --benchmark_min_time="$min_time" \
      --benchmark_format=json
  done
  step "stream_$when.json" "$bin/phasor_bench" --benchmark_filter='BM_StreamWrite' \
    --benchmark_min_time="$min_time" --benchmark_format=json
  # The peaks of vdpbf16ps and vpdpbusd (the default target's, skipped where
  # the CPU lacks them): what the bf16 and int8 encoders are read against.
  step "dot_peak_$when.json" "$bin/phasor_bench" --benchmark_filter='BM_(Bf16|Int8)Peak' \
    --benchmark_min_time="$min_time" --benchmark_format=json
}
limits start

# Cached against recomputed PE, side by side, at encoder and long lengths; the
# narrow and wide rows; RoPE applied to q and k.
for r in $(seq "$runs"); do
  step "bench_pe_$r.json" "$bin/phasor" bench-pe --lengths "$pe_lengths" \
    --min-seconds "$pe_seconds" --json
  for d in 64 4096; do
    step "bench_pe_d${d}_$r.json" "$bin/phasor" bench-pe --d-model "$d" \
      --lengths "$pe_wide_lengths" --min-seconds "$pe_seconds" --json
  done
  step "bench_pe_rope_$r.json" "$bin/phasor" bench-pe --kind rope --lengths "$pe_lengths" \
    --min-seconds "$pe_seconds" --json
done

# One long embedding pass (peak memory by /usr/bin/time), and the embed chunk:
# the default (8 MiB of output) against 1 MiB chunks.
step embed_long.json /usr/bin/time -v -o "$out/embed_long.time" "$bin/phasor" embed \
  --seq-len "$embed_long" --d-model 512 --json
for chunk in 0 512; do
  args=(--seq-len "$embed_chunk_len" --d-model 512 --repeat 3 --json)
  [ "$chunk" = 0 ] || args+=(--chunk "$chunk")
  step "embed_chunk_$chunk.json" "$bin/phasor" embed "${args[@]}"
done

# Python against the CLI, and two Python threads sharing one model.
step python_overhead.json env PYTHONPATH="$root/build/python" "$python" \
  "$here/python_overhead.py" --repeat "$python_repeat" --json

# The benchmark suite: PE kernels, the products, attention tiles.
step suite.json "$bin/phasor_bench" --benchmark_filter="$suite_filter" \
  --benchmark_min_time="$min_time" --benchmark_format=json

# The d512/8h/6L model and token files shared by the steps below.
model="$out/d512"
[ -f "$model/model.safetensors" ] || "$bin/phasor" make-toy --out "$model" --vocab 32000 \
  --d-model 512 --n-heads 8 --n-layers 6 --d-ff 2048 >/dev/null 2>&1
tokens_line() {  # tokens_line N SEED FILE: one line of N ids in [1, 32000)
  "$python" -c "
import random, sys; r = random.Random(int(sys.argv[2]))
print(' '.join(str(r.randrange(1, 32000)) for _ in range(int(sys.argv[1]))))" "$1" "$2" >"$3"
}
tokens_line "$encode_long" 7 "$out/tokens_long.txt"
tokens_line 512 5 "$out/tokens_512.txt"
tokens_line 4096 9 "$out/tokens_4096.txt"

# Peak memory of a long sequence through the whole encoder.
step encode_long.json /usr/bin/time -v -o "$out/encode_long.time" "$bin/phasor" encode \
  --model "$model" --tokens-file "$out/tokens_long.txt" --threads 2 --json

# One sequence of 4,096 tokens through the same encoder, runs times: the speed
# of a long sequence, where attention makes more than half of the products.
for r in $(seq "$runs"); do
  step "encode_4096_$r.json" "$bin/phasor" encode --model "$model" \
    --tokens-file "$out/tokens_4096.txt" --threads 2 --repeat "$encode_4096_repeat" --json
done

# The CPU targets against each other (engine/cpu.h): the d512 encoder on 1 × 512
# tokens at every precision, every target and precision in turn within a round;
# then per target the products alone (one thread) and bench-pe at two lengths.
for r in $(seq "$runs"); do
  for t in $isas; do
    for p in fp32 bf16 int8; do
      step "isa_${t}_${p}_$r.json" "$bin/phasor" --isa "$t" encode --model "$model" \
        --tokens-file "$out/tokens_512.txt" --precision "$p" --threads 2 \
        --repeat "$isa_repeat" --json
    done
  done
done
for t in $isas; do
  step "products_$t.json" env PHASOR_ISA="$t" "$bin/phasor_bench" \
    --benchmark_filter='BM_(PackedLinear|Bf16Linear|Int8Linear)/512/512/2048/1/' \
    --benchmark_min_time="$min_time" --benchmark_format=json
  step "bench_pe_isa_$t.json" "$bin/phasor" --isa "$t" bench-pe --lengths "$pe_wide_lengths" \
    --min-seconds "$pe_seconds" --json
done

# The encoder against ONNX Runtime on the same weights, every precision
# (ONNX Runtime's int8 graph needs python3-onnx; bf16 is phasor's alone), runs
# times; the accuracy of each output against PyTorch's float32.
ort_work="$out/ort-work"
if [ "$ort" = 1 ]; then
  precisions="fp32 bf16 int8"
  "$python" -c "import onnx" 2>/dev/null || {
    echo "figures: no python3-onnx: ONNX Runtime's int8 graph is not timed" >&2
    precisions="fp32 bf16"
  }
  for r in $(seq "$runs"); do
    step "ort_$r.txt" "$here/ort_compare.sh" --phasor "$bin/phasor" --work "$ort_work" \
      --cases "$ort_cases" --precision "$precisions" --threads "2 1" \
      --rounds "$ort_rounds" --repeat "$ort_repeat"
    cp "$ort_work/results.jsonl" "$out/ort_$r.jsonl"
  done
  case_dir="$ort_work/${ort_cases%% *}"
  acc=("ort fp32=$case_dir/ort_fp32.f32")
  [ -f "$case_dir/ort_int8.f32" ] && [[ "$precisions" == *int8* ]] &&
    acc+=("ort int8=$case_dir/ort_int8.f32")
  case_tokens=("$case_dir"/tokens_*.txt)  # ort_compare.sh's ids for the case
  step precision_accuracy.txt "$python" "$here/precision_accuracy.py" --model "$case_dir" \
    --tokens-file "${case_tokens[0]}" --phasor "$bin/phasor" \
    --precision "fp32 bf16 int8" "${acc[@]}"
fi
step precision_golden.txt "$python" "$here/precision_accuracy.py" --golden \
  --phasor "$bin/phasor" --precision "fp32 bf16 int8"

# Ragged batches: one call against each line alone and a dense batch (Python),
# against ONNX Runtime, a corpus file against a dense one (toy model, pooled),
# the token budget, and the same corpus through Dask.
step ragged.txt env PYTHONPATH="$root/build/python" "$python" "$here/ragged.py" \
  --rounds "$ragged_rounds"
if [ "$ort" = 1 ]; then
  step ort_ragged.txt "$here/ort_ragged.sh" --rounds "$ragged_rounds" --repeat "$ort_repeat" \
    --work "$ort_work"
fi
toy="$out/toy"
[ -f "$toy/model.safetensors" ] || "$bin/phasor" make-toy --out "$toy" >/dev/null 2>&1
# corpus.sh runs python3 bench/make_corpus.py, which needs numpy: $python's first.
step corpus.txt env TMPDIR="$out" PATH="$(dirname "$python"):$PATH" "$here/corpus.sh" "$corpus_lines" "$toy"
head -n "$budget_lines" "$out/phasor_corpus/ragged.txt" >"$out/budget_lines.txt"
for b in $budgets; do
  step "budget_$b.json" /usr/bin/time -v -o "$out/budget_$b.time" "$bin/phasor" encode \
    --model "$model" --tokens-file "$out/budget_lines.txt" --batch-tokens "$b" --pool mean \
    --threads 2 --json
done
if "$python" -c "import distributed" 2>/dev/null; then
  rm -rf "$out/dask-out"
  step dask_encode.txt /usr/bin/time -f '%e' -o "$out/dask_encode.seconds" \
    env PYTHONPATH="$root/build/python" "$python" "$root/tools/dask_encode.py" --model "$toy" \
    --tokens-file "$out/phasor_corpus/ragged.txt" --out-dir "$out/dask-out" --pool mean \
    --shard-lines 4096 --workers 2 --threads 1 --merge "$out/dask_all.npy"
  if cmp -s "$out/dask_all.npy" "$out/phasor_corpus/ragged.npy"; then
    echo identical >"$out/dask_identical.txt"
  else
    echo different >"$out/dask_identical.txt"
  fi
fi

limits end
echo "total: $(( $(date +%s) - run_start )) s" >>"$out/run.txt"
echo "load after: $(load)" >>"$out/run.txt"

if [ "$report" = 1 ]; then
  if [ -z "$docs" ]; then
    if [ "$quick" = 1 ]; then docs="$out/docs"; else docs="$root/docs"; fi
  fi
  mkdir -p "$docs"
  readme=()
  [ "$(cd "$docs" && pwd)" = "$root/docs" ] && readme=(--readme "$root/README.md")
  "$python" "$here/figures_report.py" "$out" --docs "$docs" "${readme[@]}"
fi
echo "figures: done in $(( $(date +%s) - run_start )) s; see $out (steps and load: $out/steps.tsv)" >&2
