-- wrk's script for bench/serve.sh: POST /embed ({"inputs": "<one sentence>"},
-- text-embeddings-inference's request) cycling through the lines of a file,
-- one sentence a request; at the end, one machine-readable line on stdout:
--
--   phasor-wrk: requests=N seconds=S rps=R p50_ms=.. p99_ms=.. max_ms=.. mean_ms=..
--               non2xx=.. connect=.. read=.. write=.. timeout=..
--
-- (one line; p50/p99/max/mean over the completed requests, in milliseconds).
--
--   wrk -t 1 -c 8 -d 10s --latency -s bench/serve_wrk.lua http://127.0.0.1:PORT -- LINES
--   PHASOR_WRK_LINES=LINES wrk ... -s bench/serve_wrk.lua http://127.0.0.1:PORT
--
-- Each wrk thread starts at its own place in the file, so that threads do not
-- send the same sentence at the same moment.

local thread_count = 0

function setup(thread)
  thread:set("thread_index", thread_count)
  thread_count = thread_count + 1
end

-- s as a JSON string: quotes, backslashes and control characters escaped;
-- UTF-8 passes through as it is.
local function json_string(s)
  local escaped = s:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    return string.format("\\u%04x", c:byte())
  end)
  return '"' .. escaped .. '"'
end

local requests = {}
local next_request = 1

function init(args)
  local path = args[1] or os.getenv("PHASOR_WRK_LINES")
  if path == nil or path == "" then
    error("serve_wrk.lua: give the sentences file as `-- FILE` or PHASOR_WRK_LINES")
  end
  local file = io.open(path, "r")
  if file == nil then error("serve_wrk.lua: cannot open " .. path) end
  local headers = { ["Content-Type"] = "application/json" }
  for line in file:lines() do
    line = line:gsub("\r$", "")
    if line ~= "" then
      local body = '{"inputs": ' .. json_string(line) .. "}"
      requests[#requests + 1] = wrk.format("POST", "/embed", headers, body)
    end
  end
  file:close()
  if #requests == 0 then error("serve_wrk.lua: no sentence in " .. path) end
  local index = tonumber(thread_index) or 0
  next_request = (index * 9973) % #requests + 1
end

function request()
  local r = requests[next_request]
  next_request = next_request % #requests + 1
  return r
end

function done(summary, latency, _)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "phasor-wrk: requests=%d seconds=%.3f rps=%.2f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f " ..
    "mean_ms=%.3f non2xx=%d connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1e3, latency:percentile(99) / 1e3, latency.max / 1e3,
    latency.mean / 1e3, e.status, e.connect, e.read, e.write, e.timeout))
end
