-- Ends a lease: settles it with actual usage, or releases it (InMemoryQuotaStore.end).
-- KEYS[1] the group's lease set, KEYS[2] the lease, KEYS[3..] its buckets in reservation order.
-- ARGV[A] lease id, [A+1] 's' to settle or 'r' to release, [A+2..A+1+NDIM] actual usage,
-- then per bucket its plan. Returns 1 if this call ended the lease, 0 if it had already ended.
if redis.call('ZREM', KEYS[1], ARGV[A]) == 0 then
  redis.call('DEL', KEYS[2])
  return 0
end
local raw = redis.call('GET', KEYS[2])
redis.call('DEL', KEYS[2])
if not raw then
  return 0
end
local lease = cjson.decode(raw)
local release = ARGV[A + 1] == 'r'
local now, ms = clock()
local day = calendar(ms)
local p = A + 2 + NDIM
for i = 3, #KEYS do
  local pl
  pl, p = plan(p)
  local b = load(KEYS[i])
  refill(b, pl, now, day)
  for _, d in ipairs(pl.dims) do
    local r = lease.a[d + 1]
    if r > 0 then
      local k = kind(d)
      local a
      if k == 'G' then
        a = r
      elseif release then
        a = 0
      else
        a = math.max(0, tonumber(ARGV[A + 2 + d]))
      end
      settle_dim(b, pl, d, r, a)
    end
  end
  save(b)
end
return 1
