// Tokenizes every line of a text file with Hugging Face's JavaScript
// tokenizers (npm @huggingface/tokenizers, as its users call it: encode(line))
// and writes the ids as `phasor tokenize` does: one line of ids per input
// line, separated by spaces. The other side of bench/tokenize_speed.sh.
//
//   node bench/tokenize_js.mjs --model DIR --text-file F --output OUT
//        [--no-special] [--lib NODE_MODULES]
//
// DIR holds tokenizer.json and tokenizer_config.json; NODE_MODULES holds
// @huggingface/tokenizers (default: $TOKENIZERS_JS_LIB or ./node_modules).
// Single texts only; lines are split on "\n" alone.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const model = arg("--model");
const textFile = arg("--text-file");
const output = arg("--output");
const lib = arg("--lib", process.env.TOKENIZERS_JS_LIB ?? path.resolve("node_modules"));
const addSpecial = !process.argv.includes("--no-special");
if (!model || !textFile || !output) {
  console.error("usage: node bench/tokenize_js.mjs --model DIR --text-file F --output OUT [--no-special] [--lib DIR]");
  process.exit(2);
}

const { Tokenizer } = await import(
  pathToFileURL(path.join(lib, "@huggingface/tokenizers/dist/tokenizers.mjs")).href);
const tok = new Tokenizer(
  JSON.parse(fs.readFileSync(path.join(model, "tokenizer.json"), "utf8")),
  JSON.parse(fs.readFileSync(path.join(model, "tokenizer_config.json"), "utf8")));

const lines = fs.readFileSync(textFile, "utf8").split("\n");
if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
const out = new Array(lines.length);
for (let i = 0; i < lines.length; ++i) {
  out[i] = tok.encode(lines[i], { add_special_tokens: addSpecial }).ids.join(" ");
}
fs.writeFileSync(output, out.join("\n") + (out.length ? "\n" : ""));
