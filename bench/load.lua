-- wrk script for bench/load.py: varied step URLs, and one JSON line of figures at the end.
--
--   wrk -c 100 -d 10s -s bench/load.lua http://127.0.0.1:PORT -- healthz
--   wrk -c 100 -d 10s -s bench/load.lua http://127.0.0.1:PORT -- step MODEL N_VOCAB MAX_IDS
--   wrk -c 100 -d 10s -s bench/load.lua http://127.0.0.1:PORT -- page MODEL N_VOCAB MAX_IDS
--   wrk -c 100 -d 10s -s bench/load.lua http://127.0.0.1:PORT -- class MODEL N_VOCAB MAX_IDS URL_FILE EXPLORE
--
-- "step" sends what a student's browser sends on Step: GET /step with the state in the query
-- string, HX-Request: true and Accept-Encoding: gzip (the answer is the panels as out-of-band
-- fragments, gzipped). "page" is a link opened or a page reloaded: GET / with a state, no htmx.
-- Every request has a fresh random prompt, temperature, truncation, seed and list of generated
-- ids, so no two requests are alike and nothing can be answered from a cache.
-- "class" is a lecture hall following the teacher: each request is one of the Step requests in
-- URL_FILE (the teacher's lessons, one path per line, written by bench/load.py), except a
-- fraction EXPLORE of them, which are students stepping states of their own, as in "step".

local mode, model, n_vocab, max_ids = "healthz", "", 5000, 30
local lesson_urls, explore = {}, 0

local prompts = {
  "It is a truth universally acknowledged, that a single man",
  "Mr. Darcy said",
  "Elizabeth looked at her sister and",
  "She was",
  "The weather was fine, and the whole party",
  "It was a dark and stormy night; the rain fell in torrents",
  "\"My dear Mr. Bennet,\" said his lady to him one day",
  "Emma Woodhouse, handsome, clever, and rich",
  "zyxwvut quantum blockchain",
  "",
  "<img src=x onerror=alert(1)> {{7*7}}",
  "Ünïcödé — “quotes” and ’apostrophes’",
}
local temperatures = {"0", "0.3", "0.7", "0.8", "1", "1.2", "1.5", "2"}

local function encode(s)
  return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

function init(args)
  mode = args[1] or "healthz"
  model = args[2] or ""
  n_vocab = tonumber(args[3] or "5000")
  max_ids = tonumber(args[4] or "30")
  if mode == "class" then
    for line in io.lines(args[5]) do lesson_urls[#lesson_urls + 1] = line end
    explore = tonumber(args[6] or "0")
  end
  -- each wrk thread gets its own Lua state: seed it differently
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)
end

local function state_query()
  local q = {
    "prompt=" .. encode(prompts[math.random(#prompts)]),
    "model=" .. encode(model),
    "temperature=" .. temperatures[math.random(#temperatures)],
    "seed=" .. math.random(0, 2147483647),
  }
  local r = math.random()
  if r < 0.25 then q[#q + 1] = "top_k=" .. math.random(1, 50) end
  if math.random() < 0.2 then q[#q + 1] = "top_p=" .. string.format("%.2f", 0.5 + 0.5 * math.random()) end
  if math.random() < 0.15 then q[#q + 1] = "min_p=" .. string.format("%.2f", 0.2 * math.random()) end
  local n = math.random(0, max_ids)
  if n > 0 then
    local ids = {}
    for i = 1, n do ids[i] = math.random(0, n_vocab - 1) end
    q[#q + 1] = "ids=" .. table.concat(ids, "%2C")
  end
  return table.concat(q, "&")
end

local htmx = {["HX-Request"] = "true", ["Accept-Encoding"] = "gzip"}

function request()
  if mode == "class" and math.random() >= explore then
    return wrk.format("GET", lesson_urls[math.random(#lesson_urls)], htmx)
  end
  if mode == "step" or mode == "class" then
    return wrk.format("GET", "/step?" .. state_query(), htmx)
  elseif mode == "page" then
    return wrk.format("GET", "/?" .. state_query(), {["Accept-Encoding"] = "gzip"})
  end
  return wrk.format("GET", "/healthz", {["Accept-Encoding"] = "gzip"})
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "bytes": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d, ' ..
    '"max_us": %d, "connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, e.connect, e.read, e.write, e.status, e.timeout))
end
