-- Ends leases past their time to live in one group. KEYS[1] the group's lease set.
-- ARGV[A] lease key prefix, [A+1] the most to end in this call. Returns how many ended.
local now = clock()
return reclaim(KEYS[1], ARGV[A], now, tonumber(ARGV[A + 1]))
