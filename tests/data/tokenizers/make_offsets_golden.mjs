// Writes golden/FOLDER.offsets.KIND.txt: the offsets the Rust crate
// `tokenizers` (its official Node bindings, npm `tokenizers` 0.23.2) gives
// each token of the corpus, with special tokens. Run by hand, not in CI:
//
//   python3 tests/data/tokenizers/make_folders.py --out /tmp/tokenizer_folders
//   node tests/data/tokenizers/make_offsets_golden.mjs --folders /tmp/tokenizer_folders \
//        --lib /work/tokref/node_modules
//
// The bindings' encode gives offsets in code points (Unicode scalar values:
// an emoji outside the BMP counts one, not two UTF-16 units). Each line: the
// spans "begin,end" of the line's tokens separated by spaces, special tokens
// included ("0,0"); for a pair, a TAB before the first token of the second
// text's part (Encoding::pair_start, as in the ids goldens), whose spans are
// in the second text.
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

// Corpus lines are separated by \n alone (a line may hold \r).
const lines = (kind) => {
  const text = fs.readFileSync(path.join(here, `corpus/${kind}.txt`), "utf8");
  const all = text.split("\n");
  if (all[all.length - 1] === "") all.pop();
  return all;
};

// The index of the first id of the second text's part: as the ids goldens
// place their TAB (the first id of type 1, else the first after the first
// text's part and its closing special tokens).
function pairStart(e, idsGolden) {
  const tab = idsGolden.indexOf("\t");
  return tab < 0 ? -1 : idsGolden.slice(0, tab).split(" ").filter((x) => x !== "").length;
}

for (const folder of ["bert-uncased", "bert-cased", "roberta-bpe", "xlmr-unigram"]) {
  const tokenizer = Tokenizer.fromFile(path.join(folders, folder, "tokenizer.json"));
  for (const kind of ["single", "pairs"]) {
    const golden = fs.readFileSync(path.join(here, `golden/${folder}.${kind}.special.txt`), "utf8").split("\n");
    const out = [];
    let n = 0;
    for (const line of lines(kind)) {
      const [a, b] = kind === "pairs" ? line.split("\t") : [line, null];
      const e = await tokenizer.encode(a, b, { addSpecialTokens: true });
      const ids = e.getIds().join(" ");
      if (ids !== golden[n].replace("\t", " ").trim() && !(ids === "" && golden[n] === ""))
        throw new Error(`${folder} ${kind} line ${n + 1}: ids differ from the ids golden`);
      const spans = e.getOffsets().map(([s, t]) => `${s},${t}`);
      const at = pairStart(e, golden[n]);
      out.push(at < 0 ? spans.join(" ") : spans.slice(0, at).join(" ") + "\t" + spans.slice(at).join(" "));
      ++n;
    }
    const file = path.join(here, `golden/${folder}.offsets.${kind}.txt`);
    fs.writeFileSync(file, out.join("\n") + "\n");
    console.log(`${path.relative(here, file)}: ${n} lines`);
  }
}
