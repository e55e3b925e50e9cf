// Writes the golden ids of the tokenizer parity tests (golden/*.txt) with
// Hugging Face's own JavaScript implementation of tokenizer.json
// (npm @huggingface/tokenizers 0.2.0), adjusted where it knowingly departs
// from the Rust crate (README.md lists each adjustment and why), and, for
// the Unigram folder, compares them with SentencePiece's own ids
// (spm_reference.py). Run by hand, not in CI:
//
//   python3 tests/data/tokenizers/make_folders.py --out /tmp/tokenizer_folders
//   node tests/data/tokenizers/make_golden.mjs --folders /tmp/tokenizer_folders \
//        [--lib /tmp/tokjs/node_modules] [--spm-out /tmp/tokenizer_spm_reference]
//
// Output: one line per corpus line, the ids separated by single spaces; for a
// pair, a TAB instead of the space before the first id of the second text's
// part (Encoding::pair_start), so "101 7592\t2088 102" and, when the second
// part is empty, a line ending in TAB.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

// ---------------------------------------------------------------------------
// The reference library, with its departures from the Rust crate patched.

export async function loadReference(lib) {
  const pkg = JSON.parse(fs.readFileSync(path.join(lib, "@huggingface/tokenizers/package.json"), "utf8"));
  if (pkg.version !== "0.2.0") {
    throw new Error(`@huggingface/tokenizers ${pkg.version}: the adjustments below were checked against 0.2.0`);
  }
  const T = await import(pathToFileURL(path.join(lib, "@huggingface/tokenizers/dist/tokenizers.mjs")).href);
  patch(T);
  return T;
}

const WHITE_SPACE = /\p{White_Space}/u;
const LEADING_WS = /^\p{White_Space}+/u;
const TRAILING_WS = /\p{White_Space}+$/u;

function isChineseCharRust(cp) {
  // tokenizers/src/normalizers/bert.rs is_chinese_char (note: no 0x2B820..0x2B91F).
  return (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) || (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) || (cp >= 0x2b920 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x2f800 && cp <= 0x2fa1f);
}

// SentencePiece's precompiled charsmap: u32 trie size, darts-clone double
// array, then the NUL-separated replacement strings.
class Charsmap {
  constructor(base64) {
    const buf = Buffer.from(base64, "base64");
    const trieSize = buf.readUInt32LE(0);
    this.units = new Uint32Array(trieSize / 4);
    for (let i = 0; i < this.units.length; ++i) this.units[i] = buf.readUInt32LE(4 + 4 * i);
    this.normalized = buf.subarray(4 + trieSize);
  }
  // The value of the shortest key that is a prefix of bytes (spm_precompiled's
  // common_prefix_search(..)[0]), or -1.
  firstPrefix(bytes) {
    const u = this.units;
    const offset = (unit) => ((unit >>> 10) << ((unit & (1 << 9)) >>> 6)) >>> 0;
    let pos = offset(u[0]);
    for (const c of bytes) {
      if (c === 0) return -1;
      pos = (pos ^ c) >>> 0;
      const unit = u[pos];
      if (unit === undefined || ((unit & 0x800000ff) >>> 0) !== c) return -1;
      pos = (pos ^ offset(unit)) >>> 0;
      if ((unit >>> 8) & 1) return u[pos] & 0x7fffffff;
    }
    return -1;
  }
  transform(chunk) {
    const v = this.firstPrefix(Buffer.from(chunk, "utf8"));
    if (v < 0) return null;
    let end = v;
    while (end < this.normalized.length && this.normalized[end] !== 0) ++end;
    return this.normalized.subarray(v, end).toString("utf8");
  }
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

function patch(T) {
  // (1) BertNormalizer: the Rust order (clean, CJK, strip accents, lowercase),
  // CJK spacing per code point with the crate's ranges, lowercase per code
  // point (char::to_lowercase: no final-sigma context).
  T.BertNormalizer.prototype.normalize = function (text) {
    const cfg = this.config;
    let chars = Array.from(text);
    if (cfg.clean_text) {
      chars = chars
        .filter((c) => {
          const cp = c.codePointAt(0);
          if (cp === 0 || cp === 0xfffd) return false;
          if (c === "\t" || c === "\n" || c === "\r") return true;
          return !/^[\p{Cc}\p{Cf}\p{Co}\p{Cs}]$/u.test(c);
        })
        .map((c) => (c === "\t" || c === "\n" || c === "\r" || WHITE_SPACE.test(c) ? " " : c));
    }
    if (cfg.handle_chinese_chars) {
      chars = chars.flatMap((c) => (isChineseCharRust(c.codePointAt(0)) ? [" ", c, " "] : [c]));
    }
    text = chars.join("");
    const strip = cfg.strip_accents ?? cfg.lowercase;
    if (strip) text = text.normalize("NFD").replace(/\p{Mn}/gu, "");
    if (cfg.lowercase) text = Array.from(text, (c) => c.toLowerCase()).join("");
    return text;
  };

  // (2) BertPreTokenizer: split on char::is_whitespace (White_Space), not JS \s.
  const P = "\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E";
  const bertPattern = new RegExp(`[^\\p{White_Space}${P}]+|[${P}]`, "gu");
  T.BertPreTokenizer.prototype.pre_tokenize_text = function (text) {
    return text.match(bertPattern) || [];
  };

  // (3) ByteLevel: GPT-2's pattern with Oniguruma's \s (White_Space), not JS \s.
  const byteLevelPattern =
    /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\p{White_Space}\p{L}\p{N}]+|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+/gu;
  const origByteLevel = T.ByteLevelPreTokenizer.prototype.pre_tokenize_text;
  T.ByteLevelPreTokenizer.prototype.pre_tokenize_text = function (text, options) {
    this.pattern = byteLevelPattern;
    return origByteLevel.call(this, text, options);
  };

  // (4) Precompiled: the Rust normalizer on the model's own charsmap (graphemes
  // under 6 bytes replaced whole by their shortest-prefix rule, otherwise each
  // character), instead of the JS approximation by NFKC.
  T.PrecompiledNormalizer.prototype.normalize = function (text) {
    if (!this.charsmapTrie) this.charsmapTrie = new Charsmap(this.config.precompiled_charsmap);
    const map = this.charsmapTrie;
    let out = "";
    for (const { segment } of graphemes.segment(text)) {
      if (Buffer.byteLength(segment, "utf8") < 6) {
        const norm = map.transform(segment);
        if (norm !== null) {
          out += norm;
          continue;
        }
      }
      for (const c of segment) {
        const norm = map.transform(c);
        out += norm === null ? c : norm;
      }
    }
    return out;
  };

  // (5) Metaspace with split true: one pre-token per U+2581-led word, as Rust.
  const origMetaspace = T.MetaspacePreTokenizer.prototype.pre_tokenize_text;
  T.MetaspacePreTokenizer.prototype.pre_tokenize_text = function (text, options) {
    const [s] = origMetaspace.call(this, text, options);
    const words = [];
    let cur = "";
    for (const c of s) {
      if (c === this.replacement && cur !== "") {
        words.push(cur);
        cur = "";
      }
      cur += c;
    }
    if (cur !== "") words.push(cur);
    return words;
  };

  // (6) Whitespace around added tokens (lstrip/rstrip): char::is_whitespace.
  String.prototype.trimEnd = function () { return this.replace(TRAILING_WS, ""); };
  String.prototype.trimStart = function () { return this.replace(LEADING_WS, ""); };
  String.prototype.trim = function () { return this.replace(LEADING_WS, "").replace(TRAILING_WS, ""); };
}

// ---------------------------------------------------------------------------
// Encoding with the pair boundary.

// (8) The library's encode_text, except that after normalisation only the
// added tokens with normalized true are matched (the library also takes an
// unnormalised one there, so that "＜ｓ＞", normalised to "<s>", became <s>;
// Rust matches normalized-false tokens on the raw text only).
function encodeText(tok, text) {
  if (!tok.rawAdded) {
    tok.rawAdded = new Set();
    tok.normAdded = new Set();
    for (const t of tok.added_tokens) {
      if (t.normalized && tok.normalizer !== null) tok.normAdded.add(tok.normalizer(t.content));
      else tok.rawAdded.add(t.content);
    }
  }
  const strip = (parts, set) => {
    parts.forEach((part, i) => {
      const added = set.has(part) ? tok.added_tokens_map.get(part) : undefined;
      if (!added) return;
      if (added.lstrip && i > 0) parts[i - 1] = parts[i - 1].trimEnd();
      if (added.rstrip && i < parts.length - 1) parts[i + 1] = parts[i + 1].trimStart();
    });
  };
  const sections = tok.splitter_unnormalized.split(text);
  strip(sections, tok.rawAdded);
  return sections.flatMap((section, section_index) => {
    if (section.length === 0) return [];
    if (tok.rawAdded.has(section)) return [section];
    const normalized = tok.normalizer !== null ? tok.normalizer(section) : section;
    if (normalized.length === 0) return [];
    const subsections = tok.splitter_normalized.split(normalized);
    strip(subsections, tok.normAdded);
    return subsections.flatMap((sub) => {
      if (sub.length === 0) return [];
      if (tok.normAdded.has(sub)) return [sub];
      const words = tok.pre_tokenizer !== null ? tok.pre_tokenizer(sub, { section_index }) : [sub];
      return tok.model(words);
    });
  });
}

// (7) A pair always goes through the pair template, even with an empty second
// text (the library's encode() treats text_pair "" as no pair).
export function encodeLine(tok, a, b, addSpecial) {
  const toIds = (tokens) =>
    tokens.map((t) => tok.added_tokens_map.get(t)?.id ?? tok.model.tokens_to_ids.get(t) ?? tok.model.unk_token_id);
  const ta = encodeText(tok, a);
  const tb = b === null ? null : encodeText(tok, b);
  const pp = tok.post_processor;
  const { tokens } = pp(ta, tb, addSpecial);
  const ids = toIds(tokens);
  if (ids.some((x) => x === undefined)) throw new Error(`unmapped token in ${JSON.stringify(a)}`);
  if (b === null) return { ids, pairStart: -1 };
  let pairStart;
  const cfg = pp.config;
  if (cfg.type === "TemplateProcessing") {
    pairStart = 0;
    for (const item of cfg.pair) {
      if ("Sequence" in item) {
        if (item.Sequence.id === "B") break;
        pairStart += ta.length;
      } else if (addSpecial) {
        pairStart += cfg.special_tokens[item.SpecialToken.id].ids.length;
      }
    }
  } else if (cfg.type === "RobertaProcessing") {
    pairStart = addSpecial ? 1 + ta.length + 2 : ta.length;
  } else {
    throw new Error(`post-processor ${cfg.type}`);
  }
  return { ids, pairStart };
}

export function formatIds({ ids, pairStart }) {
  if (pairStart < 0) return ids.join(" ");
  return ids.slice(0, pairStart).join(" ") + "\t" + ids.slice(pairStart).join(" ");
}

export function readLines(file) {
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  if (lines.pop() !== "") throw new Error(`${file}: no final newline`);
  return lines;
}

export function loadTokenizer(T, dir) {
  const json = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8"));
  const config = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8"));
  return new T.Tokenizer(json, config);
}

async function main() {
  const folders = arg("--folders", "/tmp/tokenizer_folders");
  const lib = arg("--lib", "/tmp/tokjs/node_modules");
  const out = arg("--out", path.join(here, "golden"));
  const spmOut = arg("--spm-out", "/tmp/tokenizer_spm_reference");
  const T = await loadReference(lib);
  fs.mkdirSync(out, { recursive: true });
  const corpus = {
    single: readLines(path.join(here, "corpus", "single.txt")),
    pairs: readLines(path.join(here, "corpus", "pairs.txt")),
  };
  // bert-vocab-only has no tokenizer.json: it is read as BertTokenizer reads
  // vocab.txt, the pipeline bert-uncased's tokenizer.json writes out, so the
  // parity test uses bert-uncased's golden files for it.
  for (const folder of ["bert-uncased", "bert-cased", "roberta-bpe", "xlmr-unigram"]) {
    const tok = loadTokenizer(T, path.join(folders, folder));
    for (const kind of ["single", "pairs"]) {
      for (const special of ["special", "no_special"]) {
        const rows = corpus[kind].map((line) => {
          const [a, b] = kind === "single" ? [line, null] : [line.slice(0, line.indexOf("\t")), line.slice(line.indexOf("\t") + 1)];
          return formatIds(encodeLine(tok, a, b, special === "special"));
        });
        const name = `${folder}.${kind}.${special}.txt`;
        fs.writeFileSync(path.join(out, name), rows.map((r) => r + "\n").join(""));
        console.error(`wrote golden/${name}: ${rows.length} lines`);
        if (folder === "xlmr-unigram") {
          const spmName = `xlmr-unigram.spm.${kind}.${special}.txt`;
          fs.mkdirSync(spmOut, { recursive: true });
          execFileSync("/usr/bin/python3", [path.join(here, "spm_reference.py"),
            path.join(folders, folder, "sentencepiece.bpe.model"), path.join(here, "corpus", `${kind}.txt`),
            kind, special, path.join(spmOut, spmName)], { stdio: "inherit" });
          const spm = readLines(path.join(spmOut, spmName));
          let same = 0;
          const differ = [];
          rows.forEach((r, i) => { if (r === spm[i]) ++same; else differ.push(i + 1); });
          console.error(`  ${spmName}: agrees with the tokenizer.json reference on ${same} of ${rows.length} lines` +
            (differ.length ? ` (differs on lines ${differ.slice(0, 20).join(", ")}${differ.length > 20 ? ", ..." : ""})` : ""));
        }
      }
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await main();
}
