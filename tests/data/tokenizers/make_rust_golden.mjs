// Writes the ids and offsets goldens of the folders whose goldens come from
// the Rust crate `tokenizers` itself (its official Node bindings, npm
// `tokenizers` 0.23.2), mpnet-wordpiece, mpnet-vocab-only and modernbert-bpe: the formats of
// make_golden.mjs (golden/FOLDER.KIND.SPECIAL.txt) and make_offsets_golden.mjs
// (golden/FOLDER.offsets.KIND.txt, special tokens on, code points). Run by
// hand, not in CI; besides the corpus, corpus/added.txt (single texts: the
// added tokens of every folder in and around text, runs of 1-30 spaces) gives
// golden/FOLDER.added.SPECIAL.txt and golden/FOLDER.offsets.added.txt:
//
//   python3 tests/data/tokenizers/make_folders.py --out /tmp/tokenizer_folders
//   node tests/data/tokenizers/make_rust_golden.mjs --folders /tmp/tokenizer_folders \
//        --lib /work/tokref/node_modules [--only FOLDER,...] [--kinds single,pairs,added]
//
// The other folders' added.txt goldens came from the same run with
// --only bert-uncased,bert-cased,roberta-bpe,xlmr-unigram --kinds added (their
// single and pairs goldens, older, are make_golden.mjs's; this script gives
// bert-uncased's and bert-cased's byte for byte; RobertaProcessing's pairs,
// all of type 0, would need make_golden.mjs's TAB rule).
//
// The TAB of a pair line (Encoding::pair_start): with special tokens, before
// the first token of type 1 (both templates give the second text and its
// closing token type 1), else at the end; without them, after the first
// text's tokens. Both are checked against the encoding's sequence ids.
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
const only = arg("--only", "mpnet-wordpiece,mpnet-vocab-only,modernbert-bpe").split(",");
const kinds = arg("--kinds", "single,pairs,added").split(",");
const require = createRequire(path.resolve(lib) + "/");
const version = JSON.parse(fs.readFileSync(path.join(lib, "tokenizers/package.json"), "utf8")).version;
if (version !== "0.23.2") throw new Error(`tokenizers ${version}: the goldens follow 0.23.2`);
const { Tokenizer } = require("tokenizers");

// Corpus lines are separated by \n alone (a line may hold \r).
const lines = (kind) => {
  const all = fs.readFileSync(path.join(here, `corpus/${kind}.txt`), "utf8").split("\n");
  if (all.pop() !== "") throw new Error(`corpus/${kind}.txt: no final newline`);
  return all;
};

function pairStart(e, special, where) {
  const seq = e.getSequenceIds();
  const firstB = seq.indexOf(1);
  const countA = seq.filter((s) => s === 0).length;
  if (!special) {
    if (firstB >= 0 && firstB !== countA) throw new Error(`${where}: the second text is not after the first`);
    return countA;
  }
  const types = e.getTypeIds();
  const firstType1 = types.indexOf(1);
  const at = firstType1 < 0 ? types.length : firstType1;
  if (firstB >= 0 && firstB !== at) throw new Error(`${where}: type 1 begins before the second text`);
  return at;
}

// mpnet-vocab-only has no tokenizer.json: the reference is the one
// transformers makes of its vocab.txt and configs (MPNetTokenizer, then
// MPNetConverter): BertNormalizer from do_lower_case / tokenize_chinese_chars /
// strip_accents, BertPreTokenizer, WordPiece with the unk token, the template
// "cls:0 $A:0 sep:0" / "cls:0 $A:0 sep:0 sep:0 $B:1 sep:1", and the special
// tokens of the configs that the vocabulary has as added tokens (normalized
// false; <mask> with lstrip, as MPNetTokenizer makes it whatever the file says).
function mpnetFromVocab(dir) {
  const read = (name) => JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
  const config = { ...read("special_tokens_map.json"), ...read("tokenizer_config.json") };
  const content = (v) => (typeof v === "string" ? v : v.content);
  const words = fs.readFileSync(path.join(dir, "vocab.txt"), "utf8").split("\n");
  if (words.pop() !== "") throw new Error("vocab.txt: no final newline");
  const vocab = {};
  words.forEach((w, i) => { if (!(w in vocab)) vocab[w] = i; });
  const keys = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"];
  const added = [];
  for (const key of keys) {
    const t = content(config[key]);
    if (t in vocab && !added.some((a) => a.content === t)) {
      added.push({ id: vocab[t], content: t, single_word: false, lstrip: key === "mask_token",
                   rstrip: false, normalized: false, special: true });
    }
  }
  const [cls, sep] = [content(config.cls_token), content(config.sep_token)];
  const item = (id, type_id) => (id === "A" || id === "B" ? { Sequence: { id, type_id } } : { SpecialToken: { id, type_id } });
  return {
    version: "1.0", truncation: null, padding: null, added_tokens: added,
    normalizer: { type: "BertNormalizer", clean_text: true,
                  handle_chinese_chars: config.tokenize_chinese_chars ?? true,
                  strip_accents: config.strip_accents ?? null, lowercase: config.do_lower_case ?? true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [item(cls, 0), item("A", 0), item(sep, 0)],
      pair: [item(cls, 0), item("A", 0), item(sep, 0), item(sep, 0), item("B", 1), item(sep, 1)],
      special_tokens: { [cls]: { id: cls, ids: [vocab[cls]], tokens: [cls] },
                        [sep]: { id: sep, ids: [vocab[sep]], tokens: [sep] } },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: content(config.unk_token), continuing_subword_prefix: "##",
             max_input_chars_per_word: 100, vocab },
  };
}

function load(folder) {
  const dir = path.join(folders, folder);
  if (folder === "mpnet-vocab-only") return Tokenizer.fromString(JSON.stringify(mpnetFromVocab(dir)));
  return Tokenizer.fromFile(path.join(dir, "tokenizer.json"));
}

const join = (items, at) => (at < 0 ? items.join(" ") : items.slice(0, at).join(" ") + "\t" + items.slice(at).join(" "));

for (const folder of only) {
  const tokenizer = load(folder);
  for (const kind of kinds) {
    const corpus = lines(kind);
    for (const special of [true, false]) {
      const ids = [], offsets = [];
      for (const [n, line] of corpus.entries()) {
        const tab = line.indexOf("\t");
        const [a, b] = kind === "pairs" ? [line.slice(0, tab), line.slice(tab + 1)] : [line, null];
        const e = await tokenizer.encode(a, b, { addSpecialTokens: special });
        const at = b === null ? -1 : pairStart(e, special, `${folder} ${kind} line ${n + 1}`);
        ids.push(join(e.getIds(), at));
        if (special) offsets.push(join(e.getOffsets().map(([s, t]) => `${s},${t}`), at));
      }
      const name = `golden/${folder}.${kind}.${special ? "special" : "no_special"}.txt`;
      fs.writeFileSync(path.join(here, name), ids.map((r) => r + "\n").join(""));
      console.log(`${name}: ${ids.length} lines`);
      if (special) {
        const oname = `golden/${folder}.offsets.${kind}.txt`;
        fs.writeFileSync(path.join(here, oname), offsets.map((r) => r + "\n").join(""));
        console.log(`${oname}: ${offsets.length} lines`);
      }
    }
  }
}
