-- wrk script: POST /v1/invoices (amount-priced, test chain 80002). Every 201 is a durable
-- charge.created in Kafka that the projector has written to Postgres.
function init(args)
  wrk.method = "POST"
  wrk.path = "/v1/invoices"
  wrk.headers["x-api-key"] = os.getenv("DUEPAY_DEMO_TEST_KEY")
  wrk.headers["content-type"] = "application/json"
  wrk.headers["Connection"] = "keep-alive"
  wrk.body = '{"chainId":80002,"amount":"1500000","reference":"bench"}'
end

function done(summary, latency, requests)
  io.write(string.format("create: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, non-2xx %d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
