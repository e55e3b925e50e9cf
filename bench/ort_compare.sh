#!/usr/bin/env bash
# phasor versus ONNX Runtime (onnxruntime-node, CPU, all graph optimisations) on
# the same weights, same batch, same thread count. A benchmark, not a test.
#
#   bench/ort_compare.sh [--phasor build/bin/phasor] [--work /tmp/phasor-ort]
#                        [--ort-dir /tmp/ort] [--rounds 5] [--repeat 10]
#                        [--threads "2 1"] [--cases "d512 d256 bert"]
#                        [--precision "fp32 bf16 int8"]
#
# For each case it writes a model with `phasor make-toy`, exports it with
# tools/export_onnx.py (torch), checks that both engines give the same hidden
# states, then runs the two engines alternately (and the precisions in turn
# within each round), `rounds` times each (so that
# noise from other work on the machine hits both alike). Each run reports the
# median of `repeat` passes; the table shows the median over rounds and the
# ratio phasor tokens/s ÷ ONNX Runtime tokens/s (> 1: phasor is faster).
#
# --precision (default fp32) lists the number formats to time. int8 runs
# `phasor encode --precision int8` against the graph of
# `tools/export_onnx.py --precision int8` (model_int8.onnx: the same int8
# weights in ONNX Runtime's dynamic quantization). bf16 times phasor alone
# (ONNX Runtime has no bfloat16 product on CPU to set beside it). The check
# before timing prints how far each reduced output is from phasor's float32.
#
# Needs node + npm (onnxruntime-node is installed into --ort-dir with
# `npm install --ignore-scripts onnxruntime-node` if missing, never into the
# repository) and a python3 with torch and numpy (PYTHON, default
# /usr/bin/python3); int8 also needs onnx (Debian python3-onnx).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
phasor="$root/build/bin/phasor"
work=/tmp/phasor-ort
ort_dir="${ORT_DIR:-/tmp/ort}"
rounds=5
repeat=10
threads_list="2 1"
cases="d512 d256 bert"
precisions="fp32"
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
    --precision) precisions="$2" ;;
    -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "ort_compare: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done

[ -x "$phasor" ] || { echo "ort_compare: no phasor binary at $phasor (build first)" >&2; exit 1; }
for p in $precisions; do
  case "$p" in
    fp32 | bf16 | int8) ;;
    *) echo "ort_compare: unknown precision $p (fp32, bf16, int8)" >&2; exit 2 ;;
  esac
done

# phasor's options for a precision: fp32 is its default and needs none.
precision_args() {
  [ "$1" = fp32 ] || echo "--precision $1"
}

# The graph ONNX Runtime runs for a precision.
onnx_file() {
  if [ "$2" = fp32 ]; then echo "$1/model.onnx"; else echo "$1/model_$2.onnx"; fi
}

# Whether ONNX Runtime has a graph of that precision to time.
ort_runs() {
  [ "$1" != bf16 ]
}

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
    # BERT-base's shape (post-LN, gelu; its 30522-token vocabulary does not
    # change the work, so the ids stay those of the other cases).
    bert) echo "--vocab 32000 --d-model 768 --n-heads 12 --n-layers 12 --d-ff 3072 --activation gelu|1|384" ;;
    *) echo "ort_compare: unknown case $1 (d512, d256, bert)" >&2; exit 2 ;;
  esac
}

results="$work/results.jsonl"
: >"$results"
for c in $cases; do
  IFS='|' read -r sizes batch seq <<<"$(case_args "$c")"
  dir="$work/$c"
  if [ ! -f "$dir/config.json" ]; then
    # shellcheck disable=SC2086
    "$phasor" make-toy --out "$dir" $sizes >&2
  fi
  for p in $precisions; do
    ort_runs "$p" || continue
    onnx="$(onnx_file "$dir" "$p")"
    if [ ! -f "$onnx" ]; then
      "$python" "$root/tools/export_onnx.py" --model "$dir" --out "$onnx" --precision "$p" 2>&1 |
        grep -v -i warn >&2 || true
      [ -f "$onnx" ] || { echo "ort_compare: no $onnx (export failed)" >&2; exit 1; }
    fi
  done
  tokens="$dir/tokens_${batch}x${seq}.txt"
  # Ids in [1, 32000): never the toy model's pad id 0. Fixed seed.
  "$python" -c "
import random; r = random.Random(5)
for _ in range($batch): print(' '.join(str(r.randrange(1, 32000)) for _ in range($seq)))" >"$tokens"

  # Same weights, same answer: max |phasor - ORT| over the batch in float32. In
  # int8 the engines quantize activations differently (ONNX Runtime: one uint8
  # scale per tensor; phasor: one int8 scale per token), so each is measured
  # against phasor's float32 instead.
  "$phasor" encode --model "$dir" --tokens-file "$tokens" --output "$dir/phasor.npy" >/dev/null
  for p in $precisions; do
    if ort_runs "$p"; then
      node "$here/ort_compare.mjs" --onnx "$(onnx_file "$dir" "$p")" --tokens-file "$tokens" \
        --repeat 1 --warmup 0 --ort-dir "$ort_dir" --output "$dir/ort_$p.f32" >/dev/null
    fi
    if [ "$p" = fp32 ]; then
      "$python" -c "
import numpy as np; a = np.load('$dir/phasor.npy'); b = np.fromfile('$dir/ort_fp32.f32', '<f4')
print('ort_compare: $c: max |phasor - ort| = %.3g' % abs(a.ravel() - b).max())" >&2
      continue
    fi
    # shellcheck disable=SC2046
    "$phasor" encode --model "$dir" --tokens-file "$tokens" $(precision_args "$p") \
      --output "$dir/phasor_$p.npy" >/dev/null
    theirs=""
    if ort_runs "$p"; then theirs="$dir/ort_$p.f32"; fi
    "$python" -c "
import numpy as np; ref = np.load('$dir/phasor.npy').ravel()
out = ['phasor %.3g' % abs(np.load('$dir/phasor_$p.npy').ravel() - ref).max()]
if '$theirs': out.append('ort %.3g' % abs(np.fromfile('$theirs', '<f4') - ref).max())
print('ort_compare: $c: max |$p - phasor fp32|: ' + ', '.join(out))" >&2
  done

  # Rounds outermost: every precision and engine once a round, so that drift
  # in the machine's speed hits all of them alike.
  for r in $(seq "$rounds"); do
    for p in $precisions; do
      for t in $threads_list; do
        # shellcheck disable=SC2046
        "$phasor" encode --model "$dir" --tokens-file "$tokens" $(precision_args "$p") \
          --threads "$t" --repeat "$repeat" --json | "$python" -c "
import json, sys; j = json.load(sys.stdin)
print(json.dumps(dict(case='$c', precision='$p', engine='phasor', threads=$t, round=$r,
                      seconds=j['seconds'], tokens_per_s=j['tokens_per_s'])))" >>"$results"
        ort_runs "$p" || continue
        node "$here/ort_compare.mjs" --onnx "$(onnx_file "$dir" "$p")" --tokens-file "$tokens" \
          --threads "$t" --repeat "$repeat" --ort-dir "$ort_dir" | "$python" -c "
import json, sys; j = json.load(sys.stdin)
print(json.dumps(dict(case='$c', precision='$p', engine='ort', threads=$t, round=$r,
                      seconds=j['seconds'], tokens_per_s=j['tokens_per_s'])))" >>"$results"
      done
    done
  done
done

"$python" - "$results" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
order = {"fp32": 0, "bf16": 1, "int8": 2}
keys = sorted({(r["case"], r["precision"], r["threads"]) for r in rows},
              key=lambda k: (k[0], order.get(k[1], 9), -k[2]))


def med(c, p, e, t):
    """Median tokens/s over rounds, or None when that engine did not run."""
    xs = [r["tokens_per_s"] for r in rows
          if (r["case"], r["precision"], r["engine"], r["threads"]) == (c, p, e, t)]
    return statistics.median(xs) if xs else None


def cell(v, width, fmt):
    return f"{'-':>{width}}" if v is None else format(v, f"{width}{fmt}")


print(f"{'case':6} {'precision':>9} {'threads':>7} {'phasor tok/s':>13} {'ort tok/s':>11}"
      f" {'phasor/ort':>10} {'phasor ms':>10} {'ort ms':>8}")
for c, p, t in keys:
    ph, o = med(c, p, "phasor", t), med(c, p, "ort", t)
    first = next(r for r in rows if r["case"] == c)
    n = first["tokens_per_s"] * first["seconds"]  # tokens in one batch
    print(f"{c:6} {p:>9} {t:7d} {cell(ph, 13, '.0f')} {cell(o, 11, '.0f')}"
          f" {cell(ph / o if ph and o else None, 10, '.3f')}"
          f" {cell(1e3 * n / ph if ph else None, 10, '.2f')} {cell(1e3 * n / o if o else None, 8, '.2f')}")
for c, p in sorted({k[:2] for k in keys}, key=lambda k: (k[0], order.get(k[1], 9))):
    ts = sorted({k[2] for k in keys if k[:2] == (c, p)})
    if 1 in ts and len(ts) > 1:
        t = ts[-1]
        for e in ("phasor", "ort"):
            if med(c, p, e, t) is None:
                continue
            s = med(c, p, e, t) / med(c, p, e, 1)
            print(f"{c} {p} {e}: {t} threads / 1 thread = {s:.2f}x "
                  f"(scaling efficiency {100 * s / t:.0f}%)")
for c, p, t in keys:
    for e in ("phasor", "ort"):
        q, f = med(c, p, e, t), med(c, "fp32", e, t)
        if p != "fp32" and q is not None and f is not None:
            print(f"{c} {e}, {t} threads: {p} / fp32 = {q / f:.2f}x")
EOF
