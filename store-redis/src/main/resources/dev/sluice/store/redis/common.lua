-- Prelude shared by every Sluice script. It mirrors dev.sluice.store.MemoryBucket step for step,
-- so a bucket in Redis and a bucket in memory give the same numbers for the same calls.
--
-- Common ARGV header (the script's own arguments start at index 10):
--   [1] one letter per dimension ordinal: R rate, G gauge, D daily cap
--   [2] now in nanoseconds, or '' to read the server clock (TIME)
--   [3] now in epoch milliseconds, or '' with [2]
--   [4] epoch-day number of the first midnight in [5]
--   [5..9] five consecutive midnights (epoch ms) of the reset zone, oldest first
local A = 10
local FORMAT = 1
-- Server time is counted from 2026-01-01T00:00:00Z so nanoseconds stay exact in a double for
-- months and within a few nanoseconds for decades.
local EPOCH_BASE = 1767225600
local KINDS = ARGV[1]
local NDIM = string.len(KINDS)

-- Field names per dimension ordinal, as constants: no string building on every call.
local FL = {[0] = 'L0', 'L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7'}
local FF = {[0] = 'F0', 'F1', 'F2', 'F3', 'F4', 'F5', 'F6', 'F7'}
local FP = {[0] = 'P0', 'P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7'}
local FR = {[0] = 'R0', 'R1', 'R2', 'R3', 'R4', 'R5', 'R6', 'R7'}
local FS = {[0] = 'S0', 'S1', 'S2', 'S3', 'S4', 'S5', 'S6', 'S7'}
local FU = {[0] = 'U0', 'U1', 'U2', 'U3', 'U4', 'U5', 'U6', 'U7'}
local FE = {[0] = 'E0', 'E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7'}
local FO = {[0] = 'O0', 'O1', 'O2', 'O3', 'O4', 'O5', 'O6', 'O7'}
local FV = {[0] = 'V0', 'V1', 'V2', 'V3', 'V4', 'V5', 'V6', 'V7'}

local KIND = {}
for d = 0, NDIM - 1 do
  KIND[d] = string.sub(KINDS, d + 1, d + 1)
end

local function kind(d)
  return KIND[d]
end

local function num(x)
  return string.format('%.17g', x)
end

local function clock()
  if ARGV[2] ~= '' then
    return tonumber(ARGV[2]), tonumber(ARGV[3])
  end
  local t = redis.call('TIME')
  local sec, usec = tonumber(t[1]), tonumber(t[2])
  return (sec - EPOCH_BASE) * 1e9 + usec * 1000, sec * 1000 + math.floor(usec / 1000)
end

-- Today's number in the reset zone and nanoseconds to its next midnight.
local function calendar(ms)
  local d0 = tonumber(ARGV[4])
  for i = 0, 3 do
    local from, to = tonumber(ARGV[5 + i]), tonumber(ARGV[6 + i])
    if ms >= from and ms < to then
      return d0 + i, (to - ms) * 1000000
    end
  end
  -- More than a day away from the caller's calendar: count plain 24-hour days.
  local m0 = tonumber(ARGV[5])
  local n = math.floor((ms - m0) / 86400000)
  return d0 + n, (m0 + (n + 1) * 86400000 - ms) * 1000000
end

-- A plan at ARGV[p]: dimension count, then (ordinal, capacity, refill per nano) per dimension.
local function plan(p)
  local n = tonumber(ARGV[p])
  local pl = {dims = {}, cap = {}, rpn = {}}
  for j = 1, n do
    local q = p + 1 + (j - 1) * 3
    local d = tonumber(ARGV[q])
    pl.dims[j] = d
    pl.cap[d] = tonumber(ARGV[q + 1])
    pl.rpn[d] = tonumber(ARGV[q + 2])
  end
  return pl, p + 1 + n * 3
end

local function load(key)
  local raw = redis.call('HGETALL', key)
  local b = {key = key, dirty = {}, v = {}, exists = #raw > 0}
  for i = 1, #raw, 2 do
    b.v[raw[i]] = tonumber(raw[i + 1])
  end
  return b
end

local function get(b, f, default)
  local x = b.v[f]
  if x == nil then return default end
  return x
end

local function put(b, f, x)
  b.v[f] = x
  b.dirty[f] = true
end

local function save(b)
  local args = {}
  for f in pairs(b.dirty) do
    args[#args + 1] = f
    args[#args + 1] = num(b.v[f])
  end
  if #args > 0 then
    redis.call('HSET', b.key, unpack(args))
  end
end

-- Brings rates up to now and rolls daily caps over (MemoryBucket.refill).
local function refill(b, pl, now, day)
  if not b.exists then
    for _, d in ipairs(pl.dims) do
      if kind(d) == 'R' then put(b, FL[d], pl.cap[d]) end
    end
    put(b, 't', now)
    put(b, 'day', day)
    put(b, 'fmt', FORMAT)
    b.exists = true
    return
  end
  local last = get(b, 't', now)
  if now - last > 0 then
    for _, d in ipairs(pl.dims) do
      if kind(d) == 'R' then
        local f = get(b, FF[d], 1)
        local cap = pl.cap[d] * f
        local from = math.max(last, math.min(now, get(b, FP[d], 0)))
        local nxt = get(b, FL[d], 0) + (now - from) * pl.rpn[d] * f
        put(b, FL[d], math.min(cap, nxt))
      end
    end
    put(b, 't', now)
  end
  if day ~= get(b, 'day', day) then
    for _, d in ipairs(pl.dims) do
      if kind(d) == 'D' then put(b, FL[d], 0) end
    end
    put(b, 'day', day)
  end
end

local function available(b, pl, d)
  if kind(d) == 'R' then return get(b, FL[d], 0) end
  return pl.cap[d] - get(b, FL[d], 0)
end

-- Ends a lease's hold on one dimension (MemoryBucket.settle).
local function settle_dim(b, pl, d, r, actual)
  put(b, FO[d], get(b, FO[d], 0) - r)
  local kept = math.min(actual, r)
  put(b, FS[d], get(b, FS[d], 0) + kept)
  put(b, FU[d], get(b, FU[d], 0) + (r - kept))
  put(b, FV[d], get(b, FV[d], 0) + (actual - kept))
  local k = kind(d)
  if k == 'R' then
    -- A refund never lifts a bucket above its capacity: unused tokens do not add burst.
    put(b, FL[d], math.min(pl.cap[d] * get(b, FF[d], 1), get(b, FL[d], 0) + r - actual))
  elseif k == 'G' then
    put(b, FL[d], get(b, FL[d], 0) - r)
  else
    put(b, FL[d], math.max(0, get(b, FL[d], 0) + actual - r))
  end
end

-- Ends every lease of the group whose time is up, at most `limit` of them (MemoryBucket.expire):
-- rates and daily caps keep the estimate, gauges are freed. Returns how many ended.
local function reclaim(zset, lease_prefix, now, limit)
  local ids = redis.call('ZRANGEBYSCORE', zset, '-inf', num(now), 'LIMIT', 0, limit)
  for _, id in ipairs(ids) do
    redis.call('ZREM', zset, id)
    local lk = lease_prefix .. id
    local raw = redis.call('GET', lk)
    if raw then
      redis.call('DEL', lk)
      local lease = cjson.decode(raw)
      for i, key in ipairs(lease.k) do
        local args = {}
        for _, d in ipairs(lease.m[i]) do
          local r = lease.a[d + 1]
          if r > 0 then
            args[#args + 1] = d
            args[#args + 1] = r
          end
        end
        if #args > 0 then
          local b = load(key)
          for j = 1, #args, 2 do
            local d, r = args[j], args[j + 1]
            put(b, FO[d], get(b, FO[d], 0) - r)
            put(b, FE[d], get(b, FE[d], 0) + r)
            if kind(d) == 'G' then put(b, FL[d], get(b, FL[d], 0) - r) end
          end
          save(b)
        end
      end
    end
  end
  return #ids
end
