-- wrk script: POST /v1/invoices with every field validated: alternately amount-priced and
-- fiat-priced (THB and USD, live rate from the dev chain's price feeds), with token, paymentMode,
-- reference, returnUrl and expiresInSeconds. Every 201 is durable in Kafka and projected.
local bodies = {
  '{"chainId":80002,"amount":"1500000","token":"USDT","paymentMode":"both","reference":"bench-a","returnUrl":"https://shop.example/done","expiresInSeconds":3600}',
  '{"chainId":80002,"fiat":{"currency":"THB","amount":"350.00"},"token":"USDT","paymentMode":"both","reference":"bench-thb","returnUrl":"https://shop.example/done","expiresInSeconds":3600}',
  '{"chainId":80002,"fiat":{"currency":"USD","amount":"12.34"},"token":"USDC","paymentMode":"wallet","reference":"bench-usd","expiresInSeconds":900}',
}
local counter = 0

function init(args)
  wrk.headers["x-api-key"] = os.getenv("DUEPAY_DEMO_TEST_KEY")
  wrk.headers["content-type"] = "application/json"
  wrk.headers["Connection"] = "keep-alive"
end

function request()
  counter = counter + 1
  return wrk.format("POST", "/v1/invoices", nil, bodies[(counter % #bodies) + 1])
end

function done(summary, latency, requests)
  io.write(string.format("create_full: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, non-2xx %d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
