-- wrk script of the overview bench (bench/dashboard/run.sh): GET $DUEPAY_OVERVIEW_PATH with the
-- bench session's cookie ($DUEPAY_BENCH_COOKIE). Keep-alive is asked for explicitly.
function init(args)
  path = os.getenv("DUEPAY_OVERVIEW_PATH")
  wrk.headers["Cookie"] = "duepay_session=" .. os.getenv("DUEPAY_BENCH_COOKIE")
  wrk.headers["Connection"] = "keep-alive"
end

function request()
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  io.write(string.format("overview: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, non-2xx %d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
