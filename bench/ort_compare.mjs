// Times ONNX Runtime (onnxruntime-node, CPU) on an encoder exported by
// tools/export_onnx.py, the way `phasor encode --repeat R --json` times phasor:
// the median wall time of R runs of one batch, session set-up not counted.
//
//   node bench/ort_compare.mjs --onnx M.onnx --tokens-file F [--threads 2]
//        [--repeat 10] [--warmup 2] [--ort-dir /tmp/ort] [--output OUT.f32]
//
// F holds one sequence a line (ids separated by spaces or commas). Lines of
// different lengths need a graph with a padding_mask input (export_onnx.py
// --padding-mask): they are padded with id 0 to the longest of their batch and
// masked. --batch-lines N runs the file in batches of N lines (0: one batch of
// all), --sort first orders the lines by length (as sentence-transformers does).
// Prints one JSON object: batch, seq_len, seconds (one pass over the file),
// tokens_per_s (real tokens, padding excluded), threads. --output writes the last run's hidden states as raw float32
// [batch, seq, d_model] (for checking that both engines compute the same).
// onnxruntime-node is loaded from --ort-dir (npm install --ignore-scripts
// onnxruntime-node there), never from the repository.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function parseArgs(argv) {
  const a = { threads: 2, repeat: 10, warmup: 2, ortDir: process.env.ORT_DIR || '/tmp/ort' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i], value = argv[i + 1];
    if (value === undefined) throw new Error(`${key} needs a value`);
    switch (key) {
      case '--onnx': a.onnx = value; break;
      case '--tokens-file': a.tokensFile = value; break;
      case '--threads': a.threads = Number(value); break;
      case '--repeat': a.repeat = Number(value); break;
      case '--warmup': a.warmup = Number(value); break;
      case '--ort-dir': a.ortDir = value; break;
      case '--output': a.output = value; break;
      case '--batch-lines': a.batchLines = Number(value); break;
      case '--sort': a.sort = value === '1' || value === 'true'; break;
      default: throw new Error(`unknown option ${key}`);
    }
  }
  if (!a.onnx || !a.tokensFile) throw new Error('--onnx and --tokens-file are required');
  return a;
}

function median(xs) {
  const s = [...xs].sort((p, q) => p - q);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const require = createRequire(path.resolve(a.ortDir) + '/');
  const ort = require('onnxruntime-node');

  const lines = readFileSync(a.tokensFile, 'utf8').split('\n').map((l) => l.trim())
    .filter((l) => l.length > 0).map((l) => l.split(/[\s,]+/).map(Number));
  const batch = lines.length, seq = Math.max(...lines.map((l) => l.length));
  const realTokens = lines.reduce((n, l) => n + l.length, 0);
  const order = lines.map((_, i) => i);
  if (a.sort) order.sort((p, q) => lines[q].length - lines[p].length);
  const per = a.batchLines > 0 ? a.batchLines : batch;

  const session = await ort.InferenceSession.create(a.onnx, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const masked = session.inputNames.includes('padding_mask');
  const feedsList = [];
  for (let b0 = 0; b0 < batch; b0 += per) {
    const rows = order.slice(b0, b0 + per);
    const width = Math.max(...rows.map((r) => lines[r].length));
    if (!masked && rows.some((r) => lines[r].length !== width)) {
      throw new Error('ragged token lines need a graph with padding_mask (--padding-mask)');
    }
    const ids = new BigInt64Array(rows.length * width);
    const mask = new Uint8Array(rows.length * width).fill(1);
    rows.forEach((r, k) => lines[r].forEach((v, j) => {
      ids[k * width + j] = BigInt(v);
      mask[k * width + j] = 0;
    }));
    const feeds = { input_ids: new ort.Tensor('int64', ids, [rows.length, width]) };
    if (masked) feeds.padding_mask = new ort.Tensor('bool', mask, [rows.length, width]);
    feedsList.push(feeds);
  }
  const pass = async () => {
    const outs = [];
    for (const feeds of feedsList) outs.push(await session.run(feeds));
    return outs;
  };
  let outs;
  for (let i = 0; i < a.warmup; ++i) outs = await pass();
  const seconds = [];
  for (let i = 0; i < a.repeat; ++i) {
    const t0 = process.hrtime.bigint();
    outs = await pass();
    seconds.push(Number(process.hrtime.bigint() - t0) * 1e-9);
  }
  const hidden = outs[0].hidden;
  if (a.output) {
    if (feedsList.length !== 1) throw new Error('--output needs one batch');
    writeFileSync(a.output, Buffer.from(hidden.data.buffer, hidden.data.byteOffset,
                                        hidden.data.byteLength));
  }
  const s = median(seconds);
  console.log(JSON.stringify({
    engine: 'onnxruntime-node', batch, seq_len: seq, d_model: hidden.dims[2], threads: a.threads,
    repeat: a.repeat, batches: feedsList.length, real_tokens: realTokens, seconds: s,
    tokens_per_s: realTokens / s,
  }));
}

main().catch((e) => {
  console.error(`ort_compare: error: ${e.message}`);
  process.exit(1);
});
