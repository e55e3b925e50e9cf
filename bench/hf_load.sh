#!/usr/bin/env bash
# Loading a Hugging Face checkpoint: `phasor encode` of 3 tokens on a BERT-base
# BertModel folder in F16 (the common download) and on phasor's own format of the
# same weights (F32), side by side, rounds alternating, the page cache warm. Each
# run is one process timed by /usr/bin/time: wall seconds and CPU seconds (user
# + system; median over runs) and peak resident set (largest over runs), and
# that peak against the model's weights in float32. Both folders must give the same hidden states (checked
# first). A benchmark, not a test.
#
#   bench/hf_load.sh [--runs 5] [--threads 2] [--shape bert-base] [--dtype F16]
#                    [--work /tmp/phasor-hf] [--phasor build/bin/phasor]
#
# The checkpoints (bench/make_hf_checkpoint.py, fixed seed) are written once
# under --work and reused. Needs /usr/bin/python3 with NumPy and /usr/bin/time.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
phasor="$root/build/bin/phasor"
work=/tmp/phasor-hf
runs=5
threads=2
shape=bert-base
dtype=F16
python="${PYTHON:-/usr/bin/python3}"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2" ;;
    --threads) threads="$2" ;;
    --shape) shape="$2" ;;
    --dtype) dtype="$2" ;;
    --work) work="$2" ;;
    --phasor) phasor="$2" ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "hf_load: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
[ -x "$phasor" ] || { echo "hf_load: no phasor binary at $phasor (build first)" >&2; exit 1; }
hf="$work/$shape-$dtype"
own="$work/$shape-$dtype-own"
mkdir -p "$work"
if [ ! -f "$hf/config.json" ] || [ ! -f "$own/config.json" ]; then
  "$python" "$here/make_hf_checkpoint.py" --shape "$shape" --dtype "$dtype" "$hf" --own "$own" >&2
fi
tokens="$work/tokens3.txt"
echo "101 7592 102" >"$tokens"

# Warm: the files in the page cache, then the same answer from both folders.
cat "$hf/model.safetensors" "$own/model.safetensors" >/dev/null
"$phasor" encode --model "$hf" --tokens-file "$tokens" --output "$work/hf.npy" >/dev/null 2>&1
"$phasor" encode --model "$own" --tokens-file "$tokens" --output "$work/own.npy" >/dev/null 2>&1
if cmp -s "$work/hf.npy" "$work/own.npy"; then
  echo "hf_load: $shape $dtype and phasor's own format give the same bits" >&2
else
  echo "hf_load: $shape $dtype and phasor's own format differ" >&2
  exit 1
fi

lscpu | grep -m1 'Model name' >&2 || true
results="$work/load.tsv"
: >"$results"
for r in $(seq "$runs"); do
  for way in hf own; do
    dir=$hf
    [ "$way" = own ] && dir=$own
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$phasor" encode --model "$dir" \
      --tokens-file "$tokens" --threads "$threads" --output "$work/$way.npy" >/dev/null 2>&1
    echo "$way $(tail -n 1 "$work/time.txt")" >>"$results"
  done
done
"$python" - "$results" "$hf/model.safetensors" "$shape" "$dtype" "$threads" "$runs" <<'PY'
import json, math, statistics, struct, sys
rows = [line.split() for line in open(sys.argv[1])]
with open(sys.argv[2], "rb") as f:  # the checkpoint's parameters, from its header
    header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
params = sum(math.prod(v["shape"]) for k, v in header.items()
             if k != "__metadata__" and v["dtype"] != "I64")
f32 = params * 4
shape, dtype, threads, runs = sys.argv[3:7]
print(f"{shape}: {params} parameters, {f32 / 1e6:.1f} MB in float32; encode of 3 tokens, "
      f"{threads} threads, {runs} runs each, warm page cache")
print(f"{'format':28s} {'seconds':>8s} {'CPU seconds':>12s} {'peak RSS, MB':>13s} "
      f"{'÷ float32 weights':>18s}")
for way, name in (("hf", f"Hugging Face {dtype}"), ("own", "phasor's own (F32)")):
    mine = [r for r in rows if r[0] == way]
    secs = statistics.median(float(r[1]) for r in mine)
    cpu = statistics.median(float(r[2]) + float(r[3]) for r in mine)
    peak = max(int(r[4]) for r in mine) * 1024
    print(f"{name:28s} {secs:8.2f} {cpu:12.2f} {peak / 1e6:13.1f} {peak / f32:18.2f}")
PY
