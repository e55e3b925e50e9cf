// Writes golden/truncation.txt: how the Rust crate `tokenizers` (its official
// Node bindings, npm `tokenizers` 0.23.2) cuts a pair with
// truncation="longest_first", on a grid of lengths. Run by hand, not in CI:
//
//   python3 tests/data/tokenizers/make_folders.py --out /tmp/tokenizer_folders
//   node tests/data/tokenizers/make_truncation_golden.mjs --folders /tmp/tokenizer_folders \
//        --lib /work/tokref/node_modules
//
// The texts are "a a ... a" (bert-uncased: one id per "a"). Each line:
//   special len_a len_b max_length kept_a kept_b
// for special 0 (no special tokens, max_length 1..26) and 1 (BERT's [CLS] A
// [SEP] B [SEP], max_length 4..29, so the same budgets 1..26 for the texts),
// len_a and len_b in 0..25.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const folders = arg("--folders", "/tmp/tokenizer_folders");
const lib = arg("--lib", "node_modules");
const require = createRequire(path.resolve(lib) + "/");
const version = JSON.parse(fs.readFileSync(path.join(lib, "tokenizers/package.json"), "utf8")).version;
if (version !== "0.23.2") throw new Error(`tokenizers ${version}: the goldens follow 0.23.2`);
const { Tokenizer } = require("tokenizers");

const tokenizer = Tokenizer.fromFile(path.join(folders, "bert-uncased/tokenizer.json"));
const words = (n) => Array(n).fill("a").join(" ");
const lines = [`# tokenizers ${version} (Rust), bert-uncased, longest_first: special len_a len_b max_length kept_a kept_b`];
for (const special of [0, 1]) {
  for (let budget = 1; budget <= 26; ++budget) {
    const max = budget + (special ? 3 : 0);
    tokenizer.setTruncation(max, { strategy: "LongestFirst" });
    for (let la = 0; la < 26; ++la) {
      for (let lb = 0; lb < 26; ++lb) {
        const e = await tokenizer.encode(words(la), words(lb), { addSpecialTokens: special === 1 });
        const types = e.getTypeIds();
        const a = types.filter((t) => t === 0).length - (special ? 2 : 0);
        const b = types.filter((t) => t === 1).length - (special ? 1 : 0);
        lines.push(`${special} ${la} ${lb} ${max} ${a} ${b}`);
      }
    }
  }
}
fs.writeFileSync(path.join(here, "golden/truncation.txt"), lines.join("\n") + "\n");
console.log(`golden/truncation.txt: ${lines.length - 1} cases`);
