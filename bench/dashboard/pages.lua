-- wrk script of the dashboard bench (bench/dashboard/run.sh): GET $DUEPAY_BENCH_PATH, each request
-- with the next of the bench's session cookies ($DUEPAY_BENCH_COOKIES, space separated), so that
-- the connections do not all touch one session row. Keep-alive is asked for explicitly. The
-- summary line starts with $DUEPAY_BENCH_PAGE; wrk counts only answers >= 400 as errors (the
-- invoice-id search answers 303 by design).
local counter = 0
local threads = {}

function setup(thread)
  thread:set("offset", #threads)
  table.insert(threads, thread)
end

function init(args)
  path = os.getenv("DUEPAY_BENCH_PATH")
  cookies = {}
  for c in string.gmatch(os.getenv("DUEPAY_BENCH_COOKIES"), "%S+") do
    table.insert(cookies, "duepay_session=" .. c)
  end
  counter = offset or 0
  wrk.headers["Connection"] = "keep-alive"
end

function request()
  counter = counter + 1
  wrk.headers["Cookie"] = cookies[counter % #cookies + 1]
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  io.write(string.format(
    "%s: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, errors (>= 400) %d\n",
    os.getenv("DUEPAY_BENCH_PAGE"), summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
