-- wrk -s benchmarks/wrk-report.lua: after the run, one tab-separated line that benchmarks/run.sh
-- turns into a RESULT line of http.txt (read by ResultsSummary). Times in microseconds.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\t%d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    summary.requests, summary.duration,
    e.status, e.connect + e.read + e.write + e.timeout))
end
