// Times ONNX Runtime (onnxruntime-node, CPU) on an encoder exported by
// tools/export_onnx.py, the way `phasor encode --repeat R --json` times phasor:
// the median wall time of R runs of one batch, session set-up not counted.
//
//   node bench/ort_compare.mjs --onnx M.onnx --tokens-file F [--threads 2]
//        [--repeat 10] [--warmup 2] [--ort-dir /tmp/ort] [--output OUT.f32]
//
// F holds one sequence a line (ids separated by spaces or commas; all lines the
// same length). Prints one JSON object: batch, seq_len, seconds, tokens_per_s,
// threads. --output writes the last run's hidden states as raw float32
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
  const batch = lines.length, seq = lines[0].length;
  if (lines.some((l) => l.length !== seq)) throw new Error('ragged token lines');
  const ids = new BigInt64Array(batch * seq);
  lines.flat().forEach((v, i) => { ids[i] = BigInt(v); });

  const session = await ort.InferenceSession.create(a.onnx, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const feeds = { input_ids: new ort.Tensor('int64', ids, [batch, seq]) };
  let out;
  for (let i = 0; i < a.warmup; ++i) out = await session.run(feeds);
  const seconds = [];
  for (let i = 0; i < a.repeat; ++i) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    seconds.push(Number(process.hrtime.bigint() - t0) * 1e-9);
  }
  const hidden = out.hidden;
  if (a.output) writeFileSync(a.output, Buffer.from(hidden.data.buffer, hidden.data.byteOffset,
                                                    hidden.data.byteLength));
  const s = median(seconds);
  console.log(JSON.stringify({
    engine: 'onnxruntime-node', batch, seq_len: seq, d_model: hidden.dims[2], threads: a.threads,
    repeat: a.repeat, seconds: s, tokens_per_s: (batch * seq) / s,
  }));
}

main().catch((e) => {
  console.error(`ort_compare: error: ${e.message}`);
  process.exit(1);
});
