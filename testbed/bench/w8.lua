-- SPDX-License-Identifier: GPL-2.0
-- testbed/bench/w8.lua: one connection of W8, the open-loop CGI mix (wrk
-- -t1 -c1; testbed/bench/load starts one wrk per connection and sets the
-- environment).  Request k of the connection is due at start + k /
-- W8_CONN_RATE seconds, whatever the latency: wrk asks delay() when the
-- connection is free, and a request whose slot has passed leaves at once
-- (never pipelined: one request in flight, as a browser or an API client
-- on one connection does), counted late if more than 10 ms after its slot
-- (or not sent by the end).
-- Each request is /cgi-bin/burn?iters=W8_DEAR with probability
-- W8_DEAR_P, else ?iters=W8_CHEAP, from the seed W8_SEED: every
-- configuration gets the same sequence.  Latency is from the slot, not
-- from the send: an open loop's answer time, the wait behind the
-- connection's earlier requests included.  Needs LuaJIT (Debian's wrk)
-- for clock.lua.  done() prints
--   w8conn conn= dear_p= sent= answered= late= errors= backends=sN:COUNT,...
--   w8lat MS DEAR     (one line per answered request, DEAR 1 or 0)
-- clock.lua, beside this script
local now_ms, wait_until = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") ..
	"clock.lua")

local cheap, dear, share
local due = {}		-- slot of each request sent and not yet answered
local kind = {}		-- and whether it was dear
-- globals: done() reads them from the thread's Lua state
sent, late, answered, lats, start, interval = 0, 0, 0, {}, nil, nil
served = {}	-- answers per backend, as burn names it

-- in init, not when loaded: wrk.format takes the Host header that
-- wrk.init sets just before calling it
function init(args)
	cheap = wrk.format("GET", "/cgi-bin/burn?iters=" .. os.getenv("W8_CHEAP"))
	dear = wrk.format("GET", "/cgi-bin/burn?iters=" .. os.getenv("W8_DEAR"))
	share = tonumber(os.getenv("W8_DEAR_P"))
	interval = 1000 / tonumber(os.getenv("W8_CONN_RATE"))
	math.randomseed(tonumber(os.getenv("W8_SEED")))
end

-- the slot and the kind of request number sent are drawn here, not in
-- request(): wrk calls request() once more, before any delay(), to see
-- whether the script pipelines
function delay()
	start = start or now_ms()
	due[sent] = start + sent * interval
	kind[sent] = math.random() < share and 1 or 0
	local ms, is_late = wait_until(due[sent])
	sent, late = sent + 1, late + (is_late and 1 or 0)
	return ms
end

function request()
	return kind[sent - 1] == 1 and dear or cheap
end

function response(status, headers, body)
	local k = answered
	answered = answered + 1
	table.insert(lats, string.format("%.1f %d", now_ms() - due[k], kind[k]))
	due[k], kind[k] = nil, nil
	local b = body:match("backend=(%w+)") or "?"
	served[b] = (served[b] or 0) + 1
end

local conn_thread	-- wrk -t1: the one thread, whose state done() reads

function setup(thread)
	conn_thread = thread
end

function done(summary, latency, requests)
	local t, e = conn_thread, summary.errors
	local sent, t0 = t:get("sent"), t:get("start")
	-- slots passed by the end whose requests never left: late as well
	local unsent = t0 and math.max(0, math.floor((now_ms() - t0) /
		t:get("interval")) + 1 - sent) or 0
	local by = {}
	for b, n in pairs(t:get("served")) do
		table.insert(by, b .. ":" .. n)
	end
	table.sort(by)
	io.write(string.format("w8conn conn=%s dear_p=%s sent=%d answered=%d " ..
		"late=%d errors=%d backends=%s\n", os.getenv("W8_CONN"),
		os.getenv("W8_DEAR_P"), sent, t:get("answered"), t:get("late") + unsent,
		e.connect + e.read + e.write + e.status + e.timeout,
		table.concat(by, ",")))
	for _, l in ipairs(t:get("lats")) do
		io.write("w8lat " .. l .. "\n")
	end
end
