#!/usr/bin/env bash
# The share of tokenizing in `phasor encode --text-file` at the MiniLM shape
# (all-MiniLM-L6-v2's sizes, random weights, bert-base-uncased's tokenizer):
# each run's --json gives the seconds of tokenizing every line and of encoding
# them; prints the median of each over the runs and the share
# tokenize / (tokenize + encode). A benchmark, not a test: run it on a quiet
# machine.
#
#   bench/tokenize_share.sh [--lines 3000] [--runs 3] [--work /tmp/phasor-share]
#                           [--phasor build/bin/phasor]
#
# The text: the first --lines lines of tokenize_speed.sh's generated text (a
# dozen scripts, numbers, punctuation; about 70 bytes and 20 tokens a line).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
phasor="$root/build/bin/phasor"
work=/tmp/phasor-share
lines=3000
runs=3
python=/usr/bin/python3
while [ $# -gt 0 ]; do
  case "$1" in
    --lines) lines="$2" ;;
    --runs) runs="$2" ;;
    --work) work="$2" ;;
    --phasor) phasor="$2" ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "tokenize_share: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
mkdir -p "$work"
model="$(PYTHON="$python" "$here/make_minilm_folder.sh" "$work")"
text="$work/text_${lines}.txt"
if [ ! -f "$text" ]; then
  "$python" "$here/tokenize_text.py" --mb 1 --out "$work/text_1mb.txt" >&2
  head -n "$lines" "$work/text_1mb.txt" > "$text"
fi
results=()
for _ in $(seq "$runs"); do
  results+=("$("$phasor" encode --model "$model" --text-file "$text" --pool model --truncate --json)")
done
printf '%s\n' "${results[@]}" | "$python" -c '
import json, statistics, sys
runs = [json.loads(line) for line in sys.stdin if line.strip()]
tok = statistics.median(r["tokenize_seconds"] for r in runs)
enc = statistics.median(r["seconds"] for r in runs)
r = runs[0]
n = r["real_tokens"]
print("lines %d, real tokens %d, threads %d, isa %s" % (r["batch"], n, r["threads"], r["isa"]))
print("tokenize %.4f s, encode %.4f s (%.0f tokens/s), tokenizing %.2f%% of the whole"
      % (tok, enc, n / enc, 100 * tok / (tok + enc)))
'
