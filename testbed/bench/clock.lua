-- SPDX-License-Identifier: GPL-2.0
-- testbed/bench/clock.lua: the paced wrk scripts' clock (paced.lua,
-- w8.lua), milliseconds of CLOCK_MONOTONIC: os.time() counts whole
-- seconds.  Needs LuaJIT (Debian's wrk) for its ffi.  A script loads it
-- with dofile() from its own directory and gets now_ms and wait_until.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec *ts);
]]
local CLOCK_MONOTONIC = 1
local ts = ffi.new("bench_timespec")

local function now_ms()
	ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
	return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

-- wait_until(slot): what delay() returns for a request due at slot (ms
-- from now, 0 once it has passed), and whether it is late: more than 10
-- ms past its slot
local function wait_until(slot)
	local t = now_ms()
	return math.max(0, math.floor(slot - t + 0.5)), t - slot > 10
end

return now_ms, wait_until
