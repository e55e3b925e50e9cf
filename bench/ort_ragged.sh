#!/usr/bin/env bash
# A ragged batch: phasor against ONNX Runtime on the same weights, the same 64
# corpus-like lines (bench/make_corpus.py: log-normal, median 24 tokens, one line
# of 384), the same threads. ONNX Runtime runs them as its users would: one padded
# batch with its key padding mask, and the lines sorted by length in batches of
# 32 (as sentence-transformers does; --batch-lines "8 32" for more sizes). Real
# tokens per second each way, rounds alternating; a benchmark, not a test.
#
#   bench/ort_ragged.sh [--rounds 5] [--repeat 5] [--threads 2] [--work /tmp/phasor-ort]
#                       [--shape d512|minilm|bert-base] [--batch-lines "32"] [--lines 64]
#
# --shape: the model's sizes (random weights, `phasor make-toy`): d512 (default)
# d512/8h/6L/ff2048 relu; minilm all-MiniLM-L6's d384/12h/6L/ff1536 gelu; bert-base
# d768/12h/12L/ff3072 gelu (both with a vocabulary of 30522).
#
# Needs what bench/ort_compare.sh needs (node + npm, python3 with torch and numpy).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
phasor="$root/build/bin/phasor"
work=/tmp/phasor-ort
ort_dir="${ORT_DIR:-/tmp/ort}"
rounds=5
repeat=5
threads=2
shape=d512
batch_lines=32
lines=64
python="${PYTHON:-/usr/bin/python3}"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2" ;;
    --repeat) repeat="$2" ;;
    --threads) threads="$2" ;;
    --work) work="$2" ;;
    --shape) shape="$2" ;;
    --batch-lines) batch_lines="$2" ;;
    --lines) lines="$2" ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "ort_ragged: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
if [ ! -d "$ort_dir/node_modules/onnxruntime-node" ]; then
  mkdir -p "$ort_dir"
  (cd "$ort_dir" && npm install --silent --ignore-scripts onnxruntime-node >&2)
fi
case "$shape" in
  d512) vocab=32000 sizes="--d-model 512 --n-heads 8 --n-layers 6 --d-ff 2048" ;;
  minilm) vocab=30522 sizes="--d-model 384 --n-heads 12 --n-layers 6 --d-ff 1536 --activation gelu" ;;
  bert-base) vocab=30522 sizes="--d-model 768 --n-heads 12 --n-layers 12 --d-ff 3072 --activation gelu" ;;
  *) echo "ort_ragged: unknown shape $shape (d512, minilm, bert-base)" >&2; exit 2 ;;
esac
dir="$work/$shape"
mkdir -p "$work"
# shellcheck disable=SC2086
[ -f "$dir/config.json" ] || "$phasor" make-toy --out "$dir" --vocab "$vocab" $sizes >&2
onnx="$dir/model_mask.onnx"
[ -f "$onnx" ] || "$python" "$root/tools/export_onnx.py" --model "$dir" --out "$onnx" \
  --padding-mask 2>&1 | grep -v -i warn >&2 || true
tokens="$work/ragged$lines-$vocab.txt"
"$python" "$here/make_corpus.py" --lines "$lines" --vocab "$vocab" "$tokens" "$work/dense$lines-$vocab.txt" >&2

# The same answer on the real tokens (ONNX Runtime's padded rows are not compared).
"$phasor" encode --model "$dir" --tokens-file "$tokens" --output "$work/phasor_ragged.npy" 2>/dev/null >/dev/null
node "$here/ort_compare.mjs" --onnx "$onnx" --tokens-file "$tokens" --repeat 1 --warmup 0 \
  --ort-dir "$ort_dir" --output "$work/ort_ragged.f32" >/dev/null
"$python" - "$work/phasor_ragged.npy" "$work/ort_ragged.f32" "$tokens" <<'PY' >&2
import sys, numpy as np
a = np.load(sys.argv[1]); b = np.fromfile(sys.argv[2], "<f4").reshape(a.shape)
n = [len(l.split()) for l in open(sys.argv[3]) if l.strip()]
err = max(float(np.abs(a[i, :k] - b[i, :k]).max()) for i, k in enumerate(n))
print(f"ort_ragged: max |phasor - ort| on real tokens = {err:.3g}")
PY

lscpu | grep -m1 'Model name' >&2 || true
results="$work/ragged.jsonl"
: >"$results"
for r in $(seq "$rounds"); do
  "$phasor" encode --model "$dir" --tokens-file "$tokens" --threads "$threads" \
    --repeat "$repeat" --json | "$python" -c "
import json, sys; j = json.load(sys.stdin)
print(json.dumps(dict(way='phasor, one call', tokens_per_s=j['tokens_per_s'])))" >>"$results"
  node "$here/ort_compare.mjs" --onnx "$onnx" --tokens-file "$tokens" --threads "$threads" \
    --repeat "$repeat" --ort-dir "$ort_dir" | "$python" -c "
import json, sys; j = json.load(sys.stdin)
print(json.dumps(dict(way='ort, one padded batch + mask', tokens_per_s=j['tokens_per_s'])))" >>"$results"
  for b in $batch_lines; do
    node "$here/ort_compare.mjs" --onnx "$onnx" --tokens-file "$tokens" --threads "$threads" \
      --repeat "$repeat" --ort-dir "$ort_dir" --batch-lines "$b" --sort 1 | "$python" -c "
import json, sys; j = json.load(sys.stdin)
print(json.dumps(dict(way='ort, sorted, batches of $b', tokens_per_s=j['tokens_per_s'])))" >>"$results"
  done
done
echo "$shape, $lines lines, $threads threads:"
"$python" - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ways = list(dict.fromkeys(r["way"] for r in rows))
med = {w: statistics.median(r["tokens_per_s"] for r in rows if r["way"] == w) for w in ways}
for w in ways:
    print(f"{w:32s} {med[w]:9.0f} real tokens/s (median)")
p = med["phasor, one call"]
for w in ways[1:]:
    print(f"phasor / {w:23s} {p / med[w]:.2f}x")
PY
