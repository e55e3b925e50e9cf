#!/usr/bin/env bash
# Records the requests of real clients (the OpenAI Node SDK, LangChain's
# OpenAIEmbeddings; versions in package.json) against `phasor serve` on the
# sentence-transformers test folder, into tests/serve/data/client_requests.json,
# which tests/serve/test_clients.py replays. Needs node and the npm registry;
# the tests need neither.
#
#   bash tests/serve/clients/record.sh [build/bin/phasor]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cli=${1:-$root/build/bin/phasor}
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
cp "$here/package.json" "$here/record.mjs" "$work/"
(cd "$work" && npm install --no-audit --no-fund --silent)
cp -r "$root/tests/data/hf/st_mean" "$work/st_mean"
cp "$root/tests/data/tokenizers/hand/tokenizer.json" "$work/st_mean/"
"$cli" serve --model "$work/st_mean" --port 0 --quiet 2> "$work/serve.log" &
server=$!
for _ in $(seq 100); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/serve.log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/serve.log"; exit 1; }
node "$work/record.mjs" "http://127.0.0.1:$port/v1" "$root/tests/serve/data/client_requests.json"
