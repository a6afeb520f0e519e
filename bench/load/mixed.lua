-- wrk script: the merchant mix, 90% GET /v1/charges/<id>/status over ids from $DUEPAY_BENCH_IDS
-- and 10% full-validation creates (fiat THB priced, every field). Latency is over the whole mix.
local ids = {}
local counter = 0
local create_body = '{"chainId":80002,"fiat":{"currency":"THB","amount":"350.00"},"token":"USDT","paymentMode":"both","reference":"bench-mix","returnUrl":"https://shop.example/done","expiresInSeconds":3600}'

local create_headers = {}

function init(args)
  local path = os.getenv("DUEPAY_BENCH_IDS")
  for line in io.lines(path) do
    if #line > 0 then ids[#ids + 1] = line end
  end
  if #ids == 0 then error("no invoice ids in " .. tostring(path)) end
  wrk.headers["x-api-key"] = os.getenv("DUEPAY_DEMO_TEST_KEY")
  wrk.headers["Connection"] = "keep-alive"
  -- wrk.format replaces wrk.headers when given a table, so the create's headers are a full copy.
  for k, v in pairs(wrk.headers) do create_headers[k] = v end
  create_headers["content-type"] = "application/json"
end

function request()
  counter = counter + 1
  if counter % 10 == 0 then
    return wrk.format("POST", "/v1/invoices", create_headers, create_body)
  end
  return wrk.format("GET", "/v1/charges/" .. ids[(counter % #ids) + 1] .. "/status")
end

local errors = 0
function response(status, headers, body)
  if status >= 300 then errors = errors + 1 end
end

function done(summary, latency, requests)
  io.write(string.format("mixed 90/10: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, non-2xx %d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
