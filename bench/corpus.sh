#!/usr/bin/env bash
# Real tokens per second and peak memory of `phasor encode --tokens-file` on a
# corpus-like file against a dense file of the same tokens, side by side.
#
#   bench/corpus.sh [LINES] [MODEL_DIR]     (defaults: 100000, a d512/8h/6L/ff2048 model)
#
# Writes the files and the model under ${TMPDIR:-/tmp}/phasor_corpus; runs each file
# twice, alternating, and prints the JSON lines (tokens_per_s, peak_rss_bytes).
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-100000}
work=${TMPDIR:-/tmp}/phasor_corpus
mkdir -p "$work"
phasor=build/bin/phasor
model=${2:-$work/d512}
[ -f "$model/config.json" ] || $phasor make-toy --out "$model" --vocab 32000 --d-model 512 \
  --n-heads 8 --n-layers 6 --d-ff 2048 > /dev/null
vocab=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["vocab_size"])' "$model/config.json")
python3 bench/make_corpus.py --lines "$lines" --vocab "$vocab" "$work/ragged.txt" "$work/dense.txt"
lscpu | grep -m1 'Model name' || true
for round in 1 2; do
  for f in ragged dense; do
    echo -n "$f round $round: "
    $phasor encode --model "$model" --tokens-file "$work/$f.txt" --pool mean \
      --output "$work/$f.npy" --json
  done
done
