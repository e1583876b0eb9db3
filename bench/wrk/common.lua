-- Shared by bench/wrk/get.lua and roll.lua: a logged-in browser's headers, the statuses
-- each thread saw, and one JSON summary written by done() to $BENCH_OUT.
local M = {}

function M.headers()
  wrk.headers["Accept-Language"] = "pl"
  local cookie = os.getenv("BENCH_COOKIE")
  if cookie and cookie ~= "" then wrk.headers["Cookie"] = cookie end
  if os.getenv("BENCH_HTMX") == "1" then wrk.headers["HX-Request"] = "true" end
end

local function encode(value)
  if type(value) == "table" then
    local parts = {}
    for k, v in pairs(value) do parts[#parts + 1] = string.format("%q:%s", tostring(k), encode(v)) end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  return tostring(value)
end

-- done(): wrk's summary and latency (µs), plus each thread's counters merged.
function M.write_summary(threads, summary, latency, counters)
  local merged = {}
  for _, thread in ipairs(threads) do
    for _, name in ipairs(counters) do
      local value = thread:get(name)
      if type(value) == "table" then
        merged[name] = merged[name] or {}
        for k, v in pairs(value) do merged[name][k] = (merged[name][k] or 0) + v end
      elseif value then
        merged[name] = (merged[name] or 0) + value
      end
    end
  end
  local result = {
    requests = summary.requests,
    duration_us = summary.duration,
    errors = summary.errors,
    p50_us = latency:percentile(50),
    p90_us = latency:percentile(90),
    p99_us = latency:percentile(99),
    max_us = latency.max,
    threads = merged,
  }
  local out = assert(io.open(os.getenv("BENCH_OUT"), "w"))
  out:write(encode(result))
  out:close()
end

return M
