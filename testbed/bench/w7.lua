-- SPDX-License-Identifier: GPL-2.0
-- testbed/bench/w7.lua: wrk's request mix for W7, the saturating CGI case.
-- Each request is /cgi-bin/burn?iters=W7_DEAR with probability
-- W7_DEAR_SHARE, else ?iters=W7_CHEAP (testbed/bench/load sets all three).
-- The generator is seeded with a constant, so every configuration gets
-- the same sequence of cheap and dear requests (wrk -t1: one thread, one
-- Lua state that makes requests); only how far into it a cell gets differs.
local cheap, dear, share

-- in init, not when loaded: wrk.format takes the Host header that
-- wrk.init sets just before calling it
function init(args)
	cheap = wrk.format("GET", "/cgi-bin/burn?iters=" .. os.getenv("W7_CHEAP"))
	dear = wrk.format("GET", "/cgi-bin/burn?iters=" .. os.getenv("W7_DEAR"))
	share = tonumber(os.getenv("W7_DEAR_SHARE"))
	math.randomseed(tonumber(os.getenv("W7_SEED")))
end

function request()
	if math.random() < share then
		return dear
	end
	return cheap
end
