-- Reserves amounts on every bucket of a path, or nothing (InMemoryQuotaStore.reserve).
-- KEYS[1] the group's lease set, KEYS[2] the new lease, KEYS[3..] the buckets, outermost first.
-- ARGV[A] lease id, [A+1] time to live (ns), [A+2] expired leases to reclaim first,
-- [A+3] lease key prefix, [A+4..A+3+NDIM] amounts, then per bucket: path index and its plan.
-- Returns {1} when granted, else {0, path index, dimension, wait, never fits, daily cap,
-- available, needed, capacity} for the binding shortfall.
local now, ms = clock()
local day, to_midnight = calendar(ms)
local budget = tonumber(ARGV[A + 2])
if budget > 0 then
  reclaim(KEYS[1], ARGV[A + 3], now, budget)
end

local amounts = {}
for d = 0, NDIM - 1 do
  amounts[d] = tonumber(ARGV[A + 4 + d])
end

local function binds(c, cur)
  if cur == nil then return true end
  if c[5] ~= cur[5] then return c[5] == 1 end
  if c[6] ~= cur[6] then return c[6] == 1 end
  local a = c[4] >= 0 and c[4] or math.huge
  local b = cur[4] >= 0 and cur[4] or math.huge
  return a > b
end

local function shortfall(b, pl, index, d, wait, never, daily, need)
  return {0, index, d, wait, never and 1 or 0, daily and 1 or 0, math.floor(available(b, pl, d)), need, pl.cap[d]}
end

-- Whether need fits on d now; if not, the shortfall (MemoryBucket.check).
local function check(b, pl, index, d, need)
  local cap = pl.cap[d]
  local k = kind(d)
  if k == 'R' then
    if need > cap then return shortfall(b, pl, index, d, -1, true, false, need) end
    local pause = math.max(0, get(b, FP[d], 0) - now)
    local f = get(b, FF[d], 1)
    -- A request larger than the adapted capacity goes when the bucket is full and leaves debt.
    local required = math.min(need, cap * f)
    local level = get(b, FL[d], 0)
    if pause == 0 and level >= required - 1e-9 then return nil end
    local rate = pl.rpn[d] * f
    local deficit = math.max(0, required - level)
    return shortfall(b, pl, index, d, pause + math.ceil(deficit / rate), false, false, need)
  elseif k == 'G' then
    if need > cap then return shortfall(b, pl, index, d, -1, true, false, need) end
    if get(b, FL[d], 0) + need <= cap then return nil end
    return shortfall(b, pl, index, d, -1, false, false, need)
  else
    if need > cap then return shortfall(b, pl, index, d, to_midnight, true, true, need) end
    if get(b, FL[d], 0) + need <= cap then return nil end
    return shortfall(b, pl, index, d, to_midnight, false, true, need)
  end
end

local buckets, plans = {}, {}
local binding = nil
local first_short = nil
local p = A + 4 + NDIM
for i = 3, #KEYS do
  local index = tonumber(ARGV[p])
  local pl
  pl, p = plan(p + 1)
  local b = load(KEYS[i])
  refill(b, pl, now, day)
  buckets[#buckets + 1] = b
  plans[#plans + 1] = pl
  for _, d in ipairs(pl.dims) do
    local need = amounts[d]
    if need > 0 then
      local s = check(b, pl, index, d, need)
      if s then
        first_short = first_short or #buckets
        if binds(s, binding) then binding = s end
      end
    end
  end
end

if binding then
  -- The in-memory store takes on the buckets before the first short one and gives back on the
  -- shortfall, which leaves a rate no higher than its adapted capacity: the same here, in
  -- the same floating-point steps.
  for i = 1, first_short - 1 do
    local b, pl = buckets[i], plans[i]
    for _, d in ipairs(pl.dims) do
      local r = amounts[d]
      if r > 0 and kind(d) == 'R' then
        put(b, FL[d], math.min(pl.cap[d] * get(b, FF[d], 1), (get(b, FL[d], 0) - r) + r))
      end
    end
  end
  for _, b in ipairs(buckets) do save(b) end
  return binding
end

local lease = {k = {}, m = {}, a = {}}
for d = 0, NDIM - 1 do
  lease.a[d + 1] = amounts[d]
end
for i, b in ipairs(buckets) do
  local pl = plans[i]
  local taken = {}
  for _, d in ipairs(pl.dims) do
    local r = amounts[d]
    if r > 0 then
      if kind(d) == 'R' then
        put(b, FL[d], get(b, FL[d], 0) - r)
      else
        put(b, FL[d], get(b, FL[d], 0) + r)
      end
      put(b, FR[d], get(b, FR[d], 0) + r)
      put(b, FO[d], get(b, FO[d], 0) + r)
      taken[#taken + 1] = d
    end
  end
  save(b)
  lease.k[i] = b.key
  lease.m[i] = taken
end
redis.call('SET', KEYS[2], cjson.encode(lease))
redis.call('ZADD', KEYS[1], num(now + tonumber(ARGV[A + 1])), ARGV[A])
return {1}
