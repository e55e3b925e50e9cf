// The requests real clients send, recorded against `phasor serve`: the OpenAI
// Node SDK and LangChain's OpenAIEmbeddings, each through a fetch that keeps
// every request (method, path, headers, body) and its status. Run by
// tests/serve/clients/record.sh (node and the npm packages of package.json);
// tests/serve/test_clients.py replays what it wrote, so that the tests need
// neither node nor the network.
//
//   node record.mjs http://127.0.0.1:PORT/v1 client_requests.json
import { writeFileSync, readFileSync } from "node:fs";
import OpenAI from "openai";
import { OpenAIEmbeddings } from "@langchain/openai";

const [base, out] = process.argv.slice(2);
const model = "st_mean";
const exchanges = [];
let client = "";

// The requests each client makes, recorded as it makes them.
async function recordingFetch(url, init = {}) {
  const headers = Object.fromEntries(new Headers(init.headers).entries());
  const response = await fetch(url, init);
  const text = await response.clone().text();
  exchanges.push({
    client,
    method: init.method ?? "GET",
    path: new URL(url).pathname,
    headers: { "content-type": headers["content-type"] ?? null },
    body: typeof init.body === "string" ? init.body : null,
    status: response.status,
    answer: response.status === 200 ? null : JSON.parse(text),
  });
  return response;
}

function check(what, ok) {
  if (!ok) throw new Error(`check failed: ${what}`);
  console.log(`ok: ${what}`);
}

const version = (name) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url))).version;

const sdk = new OpenAI({ baseURL: base, apiKey: "unused", fetch: recordingFetch, maxRetries: 0 });
client = `openai ${version("openai")}`;
const two = await sdk.embeddings.create({ model, input: ["Hello, worlds!", "zzz"] });
check("SDK: two rows of 32", two.data.length === 2 && two.data[0].embedding.length === 32);
const cut = await sdk.embeddings.create({ model, input: "hello", dimensions: 8 });
const norm = Math.hypot(...cut.data[0].embedding);
check("SDK: dimensions 8, of unit length", cut.data[0].embedding.length === 8 && Math.abs(norm - 1) < 1e-5);
try {
  await sdk.embeddings.create({ model, input: [[2, 99]] });
  check("SDK: an id outside the vocabulary raises", false);
} catch (e) {
  check(`SDK: ${e.constructor.name} ${e.status}: ${e.message}`,
        e.status === 422 && e.message.includes("token id 99") && e.param === "input");
}

client = `@langchain/openai ${version("@langchain/openai")}`;
const lc = new OpenAIEmbeddings({
  model, apiKey: "unused", batchSize: 1000, maxRetries: 0,
  configuration: { baseURL: base, fetch: recordingFetch },
});
const docs = Array.from({ length: 1000 }, (_, i) => `hello worlds ${i} unable`);
const rows = await lc.embedDocuments(docs);
check("LangChain: 1,000 documents in one request", rows.length === 1000 && rows[999].length === 32);
const query = await lc.embedQuery("Hello, worlds!");
check("LangChain: a query is the SDK's row",
      query.every((v, i) => Math.abs(v - two.data[0].embedding[i]) < 1e-7));

writeFileSync(out, JSON.stringify({ exchanges }, null, 1) + "\n");
console.log(`wrote ${exchanges.length} requests to ${out}`);
