-- "Roll" in the panel, as the GM's browser sends it: the panel form's fields (with its
-- CSRF token) and a fresh one-time token per POST. $BENCH_FORMS has one line per session,
-- "path<TAB>body" with @TOKEN@ where the token goes; $BENCH_TOKENS one line per roll,
-- "form index<TAB>token", taken by the threads in turn (thread k: lines k, k+T, ...), so
-- no token is sent twice. Counts what was sent and what was acknowledged (a 302 to the
-- roll's place in the diary: "#roll-N").
package.path = os.getenv("BENCH_LUA_DIR") .. "/?.lua;" .. package.path
local common = require("common")
common.headers()
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"

local threads = {}
local made = 0
function setup(thread)
  thread:set("id", made)
  made = made + 1
  threads[#threads + 1] = thread
end

local function urlencode(text)
  return (text:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

function init(args)
  local count = tonumber(os.getenv("BENCH_THREADS"))
  forms, tokens = {}, {}
  for line in io.lines(os.getenv("BENCH_FORMS")) do
    local path, body = line:match("^([^\t]*)\t(.*)$")
    local before, after = body:match("^(.*)@TOKEN@(.*)$")
    forms[#forms + 1] = { path = path, before = before, after = after }
  end
  local n = 0
  for line in io.lines(os.getenv("BENCH_TOKENS")) do
    if n % count == id then
      local index, token = line:match("^(%d+)\t(.*)$")
      tokens[#tokens + 1] = { form = forms[tonumber(index) + 1], token = urlencode(token) }
    end
    n = n + 1
  end
  next_token, sent, acknowledged, exhausted, statuses = 1, 0, 0, 0, {}
end

function request()
  local roll = tokens[next_token]
  if roll == nil then
    -- Out of tokens: a harmless request instead of a resent roll (the report flags it).
    exhausted = exhausted + 1
    return wrk.format("GET", "/health/")
  end
  next_token = next_token + 1
  sent = sent + 1
  return wrk.format("POST", roll.form.path, nil, roll.form.before .. roll.token .. roll.form.after)
end

function response(status, headers, body)
  statuses[tostring(status)] = (statuses[tostring(status)] or 0) + 1
  local location = headers["Location"] or headers["location"] or ""
  if status == 302 and location:find("#roll%-%d+$") then acknowledged = acknowledged + 1 end
end

function done(summary, latency, requests)
  common.write_summary(threads, summary, latency, { "statuses", "sent", "acknowledged", "exhausted" })
end
