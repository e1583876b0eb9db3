-- GET wrk's URL as a logged-in browser (or an htmx redraw with BENCH_HTMX=1);
-- counts the statuses each thread saw (bench/http_bench.py checks them).
package.path = os.getenv("BENCH_LUA_DIR") .. "/?.lua;" .. package.path
local common = require("common")
common.headers()

local threads = {}
function setup(thread) threads[#threads + 1] = thread end

function init(args) statuses = {} end

function response(status, headers, body)
  statuses[tostring(status)] = (statuses[tostring(status)] or 0) + 1
end

function done(summary, latency, requests)
  common.write_summary(threads, summary, latency, { "statuses" })
end
