-- SPDX-License-Identifier: GPL-2.0
-- testbed/bench/clock.lua: the paced wrk scripts' clock (paced.lua,
-- w8.lua), milliseconds of CLOCK_MONOTONIC: os.time() counts whole
-- seconds.  Needs LuaJIT (Debian's wrk) for its ffi.  A script loads it
-- with dofile() from its own directory and gets the function now_ms.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec *ts);
]]
local CLOCK_MONOTONIC = 1
local ts = ffi.new("bench_timespec")

return function()
	ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
	return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end
