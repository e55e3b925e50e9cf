#!/usr/bin/env bash
# phasor versus ONNX Runtime (onnxruntime-node, CPU, all graph optimisations) on
# the same weights, same batch, same thread count. A benchmark, not a test.
#
#   bench/ort_compare.sh [--phasor build/bin/phasor] [--work /tmp/phasor-ort]
#                        [--ort-dir /tmp/ort] [--rounds 5] [--repeat 10]
#                        [--threads "2 1"] [--cases "d512 d256"]
#
# For each case it writes a model with `phasor make-toy`, exports it with
# tools/export_onnx.py (torch), checks that both engines give the same hidden
# states, then runs the two engines alternately, `rounds` times each (so that
# noise from other work on the machine hits both alike). Each run reports the
# median of `repeat` passes; the table shows the median over rounds and the
# ratio phasor tokens/s ÷ ONNX Runtime tokens/s (> 1: phasor is faster).
#
# Needs node + npm (onnxruntime-node is installed into --ort-dir with
# `npm install --ignore-scripts onnxruntime-node` if missing, never into the
# repository) and a python3 with torch and numpy (PYTHON, default /usr/bin/python3).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
phasor="$root/build/bin/phasor"
work=/tmp/phasor-ort
ort_dir="${ORT_DIR:-/tmp/ort}"
rounds=5
repeat=10
threads_list="2 1"
cases="d512 d256"
python="${PYTHON:-/usr/bin/python3}"

while [ $# -gt 0 ]; do
  case "$1" in
    --phasor) phasor="$2" ;;
    --work) work="$2" ;;
    --ort-dir) ort_dir="$2" ;;
    --rounds) rounds="$2" ;;
    --repeat) repeat="$2" ;;
    --threads) threads_list="$2" ;;
    --cases) cases="$2" ;;
    -h | --help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "ort_compare: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done

[ -x "$phasor" ] || { echo "ort_compare: no phasor binary at $phasor (build first)" >&2; exit 1; }
if [ ! -d "$ort_dir/node_modules/onnxruntime-node" ]; then
  echo "ort_compare: installing onnxruntime-node into $ort_dir" >&2
  mkdir -p "$ort_dir"
  (cd "$ort_dir" && npm install --silent --ignore-scripts onnxruntime-node >&2)
fi
mkdir -p "$work"

# case name -> make-toy sizes, batch, seq
case_args() {
  case "$1" in
    d512) echo "--vocab 32000 --d-model 512 --n-heads 8 --n-layers 6 --d-ff 2048|1|512" ;;
    d256) echo "--vocab 32000 --d-model 256 --n-heads 4 --n-layers 4 --d-ff 1024|8|128" ;;
    *) echo "ort_compare: unknown case $1 (d512, d256)" >&2; exit 2 ;;
  esac
}

results="$work/results.jsonl"
: >"$results"
for c in $cases; do
  IFS='|' read -r sizes batch seq <<<"$(case_args "$c")"
  dir="$work/$c"
  if [ ! -f "$dir/model.onnx" ]; then
    # shellcheck disable=SC2086
    "$phasor" make-toy --out "$dir" $sizes >&2
    "$python" "$root/tools/export_onnx.py" --model "$dir" --out "$dir/model.onnx" 2>&1 |
      grep -v -i warn >&2 || true
  fi
  tokens="$dir/tokens_${batch}x${seq}.txt"
  # Ids in [1, 32000): never the toy model's pad id 0. Fixed seed.
  "$python" -c "
import random; r = random.Random(5)
for _ in range($batch): print(' '.join(str(r.randrange(1, 32000)) for _ in range($seq)))" >"$tokens"

  # Same weights, same answer: max |phasor - ORT| over the batch.
  "$phasor" encode --model "$dir" --tokens-file "$tokens" --output "$dir/phasor.npy" >/dev/null
  node "$here/ort_compare.mjs" --onnx "$dir/model.onnx" --tokens-file "$tokens" --repeat 1 \
    --warmup 0 --ort-dir "$ort_dir" --output "$dir/ort.f32" >/dev/null
  "$python" -c "
import numpy as np; a = np.load('$dir/phasor.npy'); b = np.fromfile('$dir/ort.f32', '<f4')
print('ort_compare: $c: max |phasor - ort| = %.3g' % abs(a.ravel() - b).max())" >&2

  for t in $threads_list; do
    for r in $(seq "$rounds"); do
      "$phasor" encode --model "$dir" --tokens-file "$tokens" --threads "$t" --repeat "$repeat" \
        --json | "$python" -c "
import json, sys; j = json.load(sys.stdin)
print(json.dumps(dict(case='$c', engine='phasor', threads=$t, round=$r, seconds=j['seconds'],
                      tokens_per_s=j['tokens_per_s'])))" >>"$results"
      node "$here/ort_compare.mjs" --onnx "$dir/model.onnx" --tokens-file "$tokens" --threads "$t" \
        --repeat "$repeat" --ort-dir "$ort_dir" | "$python" -c "
import json, sys; j = json.load(sys.stdin)
print(json.dumps(dict(case='$c', engine='ort', threads=$t, round=$r, seconds=j['seconds'],
                      tokens_per_s=j['tokens_per_s'])))" >>"$results"
    done
  done
done

"$python" - "$results" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = sorted({(r["case"], r["threads"]) for r in rows}, key=lambda k: (k[0], -k[1]))
med = lambda c, e, t: statistics.median(r["tokens_per_s"] for r in rows
                                        if (r["case"], r["engine"], r["threads"]) == (c, e, t))
print(f"{'case':6} {'threads':>7} {'phasor tok/s':>13} {'ort tok/s':>11} {'phasor/ort':>10}"
      f" {'phasor ms':>10} {'ort ms':>8}")
for c, t in keys:
    p, o = med(c, "phasor", t), med(c, "ort", t)
    n = next(r for r in rows if r["case"] == c)["tokens_per_s"] * \
        next(r for r in rows if r["case"] == c)["seconds"]
    print(f"{c:6} {t:7d} {p:13.0f} {o:11.0f} {p / o:10.3f} {1e3 * n / p:10.2f} {1e3 * n / o:8.2f}")
for c in sorted({k[0] for k in keys}):
    ts = sorted({k[1] for k in keys if k[0] == c})
    if 1 in ts and len(ts) > 1:
        t = ts[-1]
        for e in ("phasor", "ort"):
            s = med(c, e, t) / med(c, e, 1)
            print(f"{c} {e}: {t} threads / 1 thread = {s:.2f}x "
                  f"(scaling efficiency {100 * s / t:.0f}%)")
EOF
