-- wrk script: GET /v1/charges/<id>/status for ids read from $DUEPAY_BENCH_IDS (one per line).
-- Keep-alive is asked for explicitly: Pistache 0.0.5 closes HTTP/1.1 connections without it.
local ids = {}
local counter = 0

function init(args)
  local path = os.getenv("DUEPAY_BENCH_IDS")
  for line in io.lines(path) do
    if #line > 0 then ids[#ids + 1] = line end
  end
  if #ids == 0 then error("no invoice ids in " .. tostring(path)) end
  wrk.headers["x-api-key"] = os.getenv("DUEPAY_DEMO_TEST_KEY")
  wrk.headers["Connection"] = "keep-alive"
end

function request()
  counter = counter + 1
  local id = ids[(counter % #ids) + 1]
  return wrk.format("GET", "/v1/charges/" .. id .. "/status")
end

local errors = 0
function response(status, headers, body)
  if status ~= 200 then errors = errors + 1 end
end

function done(summary, latency, requests)
  io.write(string.format("status: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, non-2xx %d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
