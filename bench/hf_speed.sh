#!/usr/bin/env bash
# A Hugging Face checkpoint against phasor's own format of the same weights, on
# the same corpus-like file (bench/make_corpus.py: lines log-normal around 24
# tokens, the first of 384), the same threads, rounds alternating: real tokens
# per second each way (`phasor encode --tokens-file F --pool mean --json`,
# median of --repeat passes a run, median over rounds), their ratio, and each
# against the float32 peak of the target that runs them (phasor_bench
# BM_Fp32Peak at the same thread count, the higher of a run before and one
# after). A benchmark, not a test.
#
#   bench/hf_speed.sh [--shape minilm|bert-base] [--dtype F32|F16|BF16] [--lines 1000]
#                     [--rounds 5] [--repeat 3] [--threads 2] [--work /tmp/phasor-hf]
#                     [--phasor build/bin/phasor] [--bench build/bin/phasor_bench]
#
# The fraction of the peak counts the products' multiply-adds ×2, per layer
# 2·(4·d² + 2·d·d_ff) a token for the projections and the feed-forward and
# 2·2·n²·d for q·kᵀ and p·v of a line of n tokens (each line attends to itself
# alone), over the file's real tokens. Both folders (bench/make_hf_checkpoint.py,
# fixed seed, the checkpoint as a sentence-transformers folder) are written once
# under --work; they must give the same vectors (checked first). Needs
# /usr/bin/python3 with NumPy.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
phasor="$root/build/bin/phasor"
bench="$root/build/bin/phasor_bench"
work=/tmp/phasor-hf
shape=minilm
dtype=F32
lines=1000
rounds=5
repeat=3
threads=2
python="${PYTHON:-/usr/bin/python3}"
while [ $# -gt 0 ]; do
  case "$1" in
    --shape) shape="$2" ;;
    --dtype) dtype="$2" ;;
    --lines) lines="$2" ;;
    --rounds) rounds="$2" ;;
    --repeat) repeat="$2" ;;
    --threads) threads="$2" ;;
    --work) work="$2" ;;
    --phasor) phasor="$2" ;;
    --bench) bench="$2" ;;
    -h | --help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "hf_speed: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
for b in "$phasor" "$bench"; do
  [ -x "$b" ] || { echo "hf_speed: no binary at $b (build first)" >&2; exit 1; }
done
hf="$work/$shape-$dtype-st"
own="$work/$shape-$dtype-own"
mkdir -p "$work"
if [ ! -f "$hf/config.json" ] || [ ! -f "$own/config.json" ]; then
  "$python" "$here/make_hf_checkpoint.py" --shape "$shape" --dtype "$dtype" \
    --sentence-transformers "$hf" --own "$own" >&2
fi
tokens="$work/ragged$lines.txt"
"$python" "$here/make_corpus.py" --lines "$lines" --vocab 30522 "$tokens" "$work/dense$lines.txt" >&2
"$phasor" encode --model "$hf" --tokens-file "$tokens" --pool mean --output "$work/hf_speed_hf.npy" \
  >/dev/null 2>&1
"$phasor" encode --model "$own" --tokens-file "$tokens" --pool mean \
  --output "$work/hf_speed_own.npy" >/dev/null 2>&1
cmp -s "$work/hf_speed_hf.npy" "$work/hf_speed_own.npy" ||
  { echo "hf_speed: the two folders give different vectors" >&2; exit 1; }
isa=$("$phasor" --version | sed -n 's/^isa: //p')

# The peak of the target phasor runs on, before and after the encoder runs.
peak() {
  PHASOR_ISA="$isa" "$bench" "--benchmark_filter=BM_Fp32Peak/$threads/" \
    --benchmark_format=json 2>/dev/null |
    "$python" -c "import json, sys; print(json.load(sys.stdin)['benchmarks'][0]['GFLOP/s'])"
}
peaks="$(peak)"
lscpu | grep -m1 'Model name' >&2 || true
results="$work/hf_speed.tsv"
: >"$results"
for r in $(seq "$rounds"); do
  for way in own hf; do
    dir=$own
    [ "$way" = hf ] && dir=$hf
    "$phasor" encode --model "$dir" --tokens-file "$tokens" --pool mean --threads "$threads" \
      --repeat "$repeat" --json 2>/dev/null |
      "$python" -c "import json, sys; print('$way', json.load(sys.stdin)['tokens_per_s'])" >>"$results"
  done
done
peaks="$peaks $(peak)"
"$python" - "$results" "$tokens" "$own/config.json" "$peaks" "$isa" "$threads" "$dtype" <<'PY'
import json, statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
n = [len(line.split()) for line in open(sys.argv[2]) if line.strip()]
c = json.load(open(sys.argv[3]))
d, ff, layers = c["d_model"], c["d_ff"], c["n_layers"]
peak = max(float(p) for p in sys.argv[4].split())
isa, threads, dtype = sys.argv[5:8]
tokens = sum(n)
flops = layers * (2 * (4 * d * d + 2 * d * ff) * tokens + 2 * 2 * d * sum(k * k for k in n))
per_token = flops / tokens
med = {w: statistics.median(float(r[1]) for r in rows if r[0] == w) for w in ("own", "hf")}
print(f"d{d}/{c['n_heads']}h/{layers}L/ff{ff}: {len(n)} lines, {tokens} real tokens "
      f"(median {int(statistics.median(n))}, longest {max(n)}); {threads} threads, isa {isa}, "
      f"float32 peak {peak:.1f} GFLOP/s; {per_token / 1e6:.2f} MFLOP a real token")
print(f"{'format':32s} {'real tokens/s':>14s} {'÷ own':>7s} {'of the peak':>12s}")
for w, name in (("own", "phasor's own (F32)"), ("hf", f"Hugging Face {dtype} (st folder)")):
    print(f"{name:32s} {med[w]:14.0f} {med[w] / med['own']:7.3f} "
          f"{med[w] * per_token / 1e9 / peak:12.2f}")
PY
