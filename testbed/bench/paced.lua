-- SPDX-License-Identifier: GPL-2.0
-- testbed/bench/paced.lua: wrk at a fixed, open-loop request rate (make
-- bench-director).  Request k of the run is due at start + k / PACED_RATE
-- seconds, whichever connection is free to send it: wrk asks delay()
-- before every request, on every connection (after the connect, too, so
-- with "Connection: close" each new connection waits for its slot), and
-- each call takes the next slot.  So the rate does not follow the
-- director's latency, as long as some connection is free when a slot
-- comes: one that is not yet free sends late, counted in "late" (more
-- than 10 ms after its slot).  Needs wrk -t1 (one Lua state that makes
-- requests) and LuaJIT (Debian's wrk), for clock.lua.
-- PACED_RATE=max: no delay() at all (wrk then sends each connection's next
-- request as soon as its response is in, without a timer per request): a
-- closed loop, the capacity cells.
-- done() prints one line for testbed/bench/director-load.sh:
--   paced requests= secs= errors= late= p50= p90= p99= p999=  (ms)
-- clock.lua, beside this script
local now_ms, wait_until = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") ..
	"clock.lua")

local interval, start
-- globals: done() reads them from the thread's Lua state
sent, late = 0, 0

function init(args)
	interval = 1000 / (tonumber(os.getenv("PACED_RATE")) or math.huge)
end

function delay()
	start = start or now_ms()
	local ms, is_late = wait_until(start + sent * interval)
	sent, late = sent + 1, late + (is_late and 1 or 0)
	return ms
end

if os.getenv("PACED_RATE") == "max" then
	-- wrk looks for delay() after loading the script
	delay = nil
end

local threads = {}

function setup(thread)
	table.insert(threads, thread)
end

function done(summary, latency, requests)
	local e = summary.errors
	local lt = 0
	for _, t in ipairs(threads) do
		lt = lt + t:get("late")
	end
	io.write(string.format("paced requests=%d secs=%.2f errors=%d late=%d " ..
		"p50=%.2f p90=%.2f p99=%.2f p999=%.2f\n",
		summary.requests, summary.duration / 1e6,
		e.connect + e.read + e.write + e.status + e.timeout, lt,
		latency:percentile(50) / 1000, latency:percentile(90) / 1000,
		latency:percentile(99) / 1000, latency:percentile(99.9) / 1000))
end
