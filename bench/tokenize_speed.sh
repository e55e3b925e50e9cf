#!/usr/bin/env bash
# Tokenizing speed: `phasor tokenize` against Hugging Face's JavaScript
# tokenizers (bench/tokenize_js.mjs) on the same text file, whole processes
# timed side by side (loading the tokenizer included), one thread each, rounds
# alternating: MB of text per second each way (median over rounds) and their
# ratio (> 1: phasor is faster), for bert-uncased (WordPiece) and roberta-bpe
# (byte-level BPE). The two outputs must be identical (checked on every round).
# A benchmark, not a test: run it on a quiet machine.
#
#   bench/tokenize_speed.sh [--mb 5] [--rounds 5] [--models "bert-uncased roberta-bpe"]
#                           [--work /tmp/phasor-tokenize] [--lib NODE_MODULES]
#                           [--phasor build/bin/phasor]
#
# The text (--mb megabytes) is made of lines generated from the word pools of
# tests/data/tokenizers/make_corpus.py (a dozen scripts, numbers, punctuation,
# emoji; fixed seed), leaving out the pools of hard cases, on which the
# JavaScript port knowingly departs from Hugging Face's Rust tokenizers
# (tests/data/tokenizers/README.md): the outputs can then be compared. The
# folders come from tests/data/tokenizers/make_folders.py. Both are written once
# under --work. Needs node (20+), /usr/bin/python3; @huggingface/tokenizers is
# taken from --lib (or $TOKENIZERS_JS_LIB) or installed with npm into
# --work/js (never into the repository).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
phasor="$root/build/bin/phasor"
work=/tmp/phasor-tokenize
mb=5
rounds=5
models="bert-uncased roberta-bpe"
lib="${TOKENIZERS_JS_LIB:-}"
python=/usr/bin/python3
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) mb="$2" ;;
    --rounds) rounds="$2" ;;
    --models) models="$2" ;;
    --work) work="$2" ;;
    --lib) lib="$2" ;;
    --phasor) phasor="$2" ;;
    -h | --help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "tokenize_speed: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
mkdir -p "$work"

if [ -z "$lib" ]; then
  lib="$work/js/node_modules"
  if [ ! -f "$lib/@huggingface/tokenizers/package.json" ]; then
    echo "installing @huggingface/tokenizers@0.2.0 into $work/js" >&2
    (cd "$work" && mkdir -p js && cd js && npm install --silent --no-audit --no-fund \
      @huggingface/tokenizers@0.2.0 >&2)
  fi
fi
[ -f "$lib/@huggingface/tokenizers/package.json" ] ||
  { echo "tokenize_speed: no @huggingface/tokenizers under $lib" >&2; exit 1; }

folders="$work/folders"
[ -d "$folders/roberta-bpe" ] ||
  "$python" "$root/tests/data/tokenizers/make_folders.py" --out "$folders"

text="$work/text_${mb}mb.txt"
if [ ! -f "$text" ]; then
  "$python" "$here/tokenize_text.py" --mb "$mb" --out "$text"
fi
bytes=$(stat -c %s "$text")
echo "text: $text ($bytes bytes, $(wc -l < "$text") lines)"

have_phasor=1
if [ ! -x "$phasor" ] || ! "$phasor" tokenize --help > /dev/null 2>&1; then
  echo "tokenize_speed: $phasor has no 'tokenize' command yet; timing the JavaScript side only" >&2
  have_phasor=0
fi

# seconds of one run of "$@" (wall clock)
seconds() {
  local t0 t1
  t0=$(date +%s%N)
  "$@"
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

export OMP_NUM_THREADS=1
printf '%-14s %12s %12s %8s\n' model "phasor MB/s" "JS MB/s" ratio
for model in $models; do
  dir="$folders/$model"
  : > "$work/$model.phasor.s"
  : > "$work/$model.js.s"
  for round in $(seq "$rounds"); do
    if [ $have_phasor = 1 ]; then
      seconds "$phasor" tokenize --model "$dir" --text-file "$text" \
        --output "$work/$model.phasor.txt" >> "$work/$model.phasor.s" 2>> "$work/phasor.log"
    fi
    seconds node "$here/tokenize_js.mjs" --model "$dir" --text-file "$text" \
      --output "$work/$model.js.txt" --lib "$lib" >> "$work/$model.js.s"
    if [ $have_phasor = 1 ] && ! cmp -s "$work/$model.phasor.txt" "$work/$model.js.txt"; then
      echo "tokenize_speed: $model: phasor's ids differ from the JavaScript ones" \
        "(diff $work/$model.phasor.txt $work/$model.js.txt)" >&2
      exit 1
    fi
  done
  js_mbs=$(awk -v n="$bytes" -v s="$(median < "$work/$model.js.s")" 'BEGIN { printf "%.3f", n / 1e6 / s }')
  if [ $have_phasor = 1 ]; then
    ph_mbs=$(awk -v n="$bytes" -v s="$(median < "$work/$model.phasor.s")" 'BEGIN { printf "%.3f", n / 1e6 / s }')
    ratio=$(awk -v a="$ph_mbs" -v b="$js_mbs" 'BEGIN { printf "%.2f", a / b }')
  else
    ph_mbs=-
    ratio=-
  fi
  printf '%-14s %12s %12s %8s\n' "$model" "$ph_mbs" "$js_mbs" "$ratio"
done
