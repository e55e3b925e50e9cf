// The Rust tokenizers crate's side of bench/tokenizer_load.sh (npm `tokenizers`
// 0.23.2, its Node bindings): seconds to load a tokenizer.json, then to encode
// every line of a text file (special tokens on, encodeBatch in blocks of 8,192
// lines; bench/tokenizer_load.sh runs it on one thread), as one
// JSON line {"load": s, "tokenize": s, "ids": n}.
//
//   node bench/tokenizer_load.mjs --model DIR --text-file F --lib NODE_MODULES
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const arg = (name) => {
  const i = process.argv.indexOf(name);
  if (i < 0) throw new Error(`tokenizer_load.mjs: ${name} is required`);
  return process.argv[i + 1];
};
const lib = arg("--lib");
const require = createRequire(path.resolve(lib) + "/");
const { Tokenizer } = require("tokenizers");
const lines = fs.readFileSync(arg("--text-file"), "utf8").split("\n");
if (lines[lines.length - 1] === "") lines.pop();
const t0 = process.hrtime.bigint();
const tokenizer = Tokenizer.fromFile(path.join(arg("--model"), "tokenizer.json"));
const t1 = process.hrtime.bigint();
let ids = 0;
for (let i = 0; i < lines.length; i += 8192) {
  const batch = await tokenizer.encodeBatch(lines.slice(i, i + 8192), { addSpecialTokens: true });
  for (const e of batch) ids += e.getIds().length;
}
const t2 = process.hrtime.bigint();
console.log(JSON.stringify({ load: Number(t1 - t0) / 1e9, tokenize: Number(t2 - t1) / 1e9, ids }));
