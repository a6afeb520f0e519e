-- wrk script of the list bench (bench/list/run.sh): GET $DUEPAY_LIST_PATH with the bench key
-- ($DUEPAY_BENCH_KEY). Keep-alive is asked for explicitly, as in bench/load.
function init(args)
  path = os.getenv("DUEPAY_LIST_PATH")
  wrk.headers["x-api-key"] = os.getenv("DUEPAY_BENCH_KEY")
  wrk.headers["Connection"] = "keep-alive"
end

function request()
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  io.write(string.format("list: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, non-2xx %d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
