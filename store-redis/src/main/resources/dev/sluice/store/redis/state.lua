-- The server side of the Redis quota store, part 1 of 2 (state.lua, then calls.lua): one library
-- of functions, loaded once (FUNCTION LOAD) or, on a server without functions, sent as one
-- script per entry point (EVALSHA). It mirrors dev.sluice.store.MemoryBucket step for step, so a
-- bucket in Redis and a bucket in memory give the same numbers for the same calls.
--
-- Values are packed with the struct library (little-endian): doubles keep every bit, and a call
-- reads every bucket it needs with one MGET and writes them back with one MSET.
--
-- A bucket (string): '<BBdd' format, number of dimension records n, last refill (ns), day number;
-- then n records of nine doubles (level, rate factor, paused until (ns), reserved, settled,
-- refunded, expired, open, overage); then n bytes, the dimension ordinal of each record.
--
-- A lease is a member of its group's sorted set, scored by expiry, and carries what ending it
-- needs: the amount per dimension (doubles), '<H' + id, '<B' bucket count, then per bucket '<H'
-- mask of the dimensions taken and '<H' + key.
--
-- Plans (argument): per bucket '<BB' path index and dimension count, then per dimension '<Bddd'
-- ordinal, capacity, refill per nanosecond, ceiling (the largest request it can ever take).
--
-- Clock (argument): '' for the server's clock (TIME, read once per call), else '<dd' now (ns)
-- and epoch ms.
-- Calendar (argument): '<dddddddddd' epoch-day of the first midnight, five consecutive midnights
-- (epoch ms) of the reset zone, oldest first, then for each of the first four days the midnight
-- (epoch ms) that starts the month after its own.

local FORMAT = 2
-- Server time is counted from 2026-01-01T00:00:00Z so nanoseconds stay exact in a double for
-- months and within a few nanoseconds for decades.
local EPOCH_BASE = 1767225600
-- Per dimension ordinal its kind (R rate, G gauge, D daily cap, M monthly cap), the dimension count and the
-- struct format of an amount per dimension: written in by Java, since a function library may use
-- no library (string, struct) while it loads.
local KIND = @KIND@
local NDIM = @NDIM@
local AMOUNTS = '@AMOUNTS@'
local BIT = {}
for d = 0, NDIM - 1 do
  BIT[d] = 2 ^ d
end
-- A dimension's record: nine values, at these offsets.
local W = 9
local L, F, P, R, S, U, E, O, V = 1, 2, 3, 4, 5, 6, 7, 8, 9
local HEAD = '<BBdd'

-- Now (ns since EPOCH_BASE) and epoch ms: a test clock's reading when arg has one, else the
-- server's clock, read once per call (t caches it).
local function clock(arg, t)
  if arg ~= '' then
    return struct.unpack('<dd', arg)
  end
  if not t.now then
    local x = redis.call('TIME')
    local sec, usec = tonumber(x[1]), tonumber(x[2])
    t.now, t.ms = (sec - EPOCH_BASE) * 1e9 + usec * 1000, sec * 1000 + math.floor(usec / 1000)
  end
  return t.now, t.ms
end

local function num(x)
  return string.format('%.17g', x)
end

-- The proleptic Gregorian date of an epoch day, and back (the civil-calendar arithmetic of
-- java.time.LocalDate, which the in-memory store uses).
local function civil(z)
  z = z + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  return y, m
end

local function epoch_day(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local doy = math.floor((153 * (m > 2 and m - 3 or m + 9) + 2) / 5) + d - 1
  return era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
end

-- The month holding an epoch day of the reset zone: year * 12 + month, January 0 (CalendarMonths).
local function month_of(day)
  local y, m = civil(day)
  return y * 12 + m - 1
end

-- Today's number in the reset zone, and the nanoseconds to its next midnight and to the month's
-- end as {D = ..., M = ...}, the wait of a spent cap of each kind.
local function calendar(arg, ms)
  local d0, m0, m1, m2, m3, m4, e0, e1, e2, e3 = struct.unpack('<dddddddddd', arg)
  if ms >= m0 and ms < m4 then
    if ms < m1 then return d0, {D = (m1 - ms) * 1000000, M = (e0 - ms) * 1000000} end
    if ms < m2 then return d0 + 1, {D = (m2 - ms) * 1000000, M = (e1 - ms) * 1000000} end
    if ms < m3 then return d0 + 2, {D = (m3 - ms) * 1000000, M = (e2 - ms) * 1000000} end
    return d0 + 3, {D = (m4 - ms) * 1000000, M = (e3 - ms) * 1000000}
  end
  -- More than a day away from the caller's calendar: count plain 24-hour days.
  local n = math.floor((ms - m0) / 86400000)
  local y, m = civil(d0 + n)
  if m == 12 then y, m = y + 1, 1 else m = m + 1 end
  local next_month = epoch_day(y, m, 1) - d0
  return d0 + n, {D = (m0 + (n + 1) * 86400000 - ms) * 1000000, M = (m0 + next_month * 86400000 - ms) * 1000000}
end

-- Parsed plans by their packed text. The same paths come again and again, and a function
-- library stays loaded between calls, so each is parsed once; the cache is a pure function of
-- its keys and is dropped when it grows large.
local plan_cache, plan_cached = {}, 0

-- The plans of a group: per bucket {index, n, d = ordinals, kind, cap, rpn, ceil}, the last five by
-- position 1..n. Callers never change them.
local function plans(arg)
  local out = plan_cache[arg]
  if out then return out end
  out = {}
  local pos, last = 1, string.len(arg)
  while pos <= last do
    local index, n
    index, n, pos = struct.unpack('<BB', arg, pos)
    local pl = {index = index, n = n, d = {}, kind = {}, cap = {}, rpn = {}, ceil = {}}
    for k = 1, n do
      local d, cap, rpn, ceil
      d, cap, rpn, ceil, pos = struct.unpack('<Bddd', arg, pos)
      pl.d[k], pl.kind[k], pl.cap[k], pl.rpn[k], pl.ceil[k] = d, KIND[d], cap, rpn, ceil
    end
    out[#out + 1] = pl
  end
  if plan_cached >= 1000 then
    plan_cache, plan_cached = {}, 0
  end
  plan_cache[arg] = out
  plan_cached = plan_cached + 1
  return out
end

-- The amounts of a lease (indexed by ordinal + 1) and the position after them. For a lease this
-- build wrote (reserve, settle): its own shape.
local function amounts(member)
  local a = {struct.unpack(AMOUNTS, member)}
  return a, a[NDIM + 1]
end

-- Whether the fields after a lease's amounts, from pos (<H id, <B bucket count, per bucket <H
-- mask and <H key), end exactly where the member does.
local function lease_tail_fits(member, pos)
  local len = #member
  if pos + 1 > len then return false end
  local idlen = struct.unpack('<H', member, pos)
  pos = pos + 2 + idlen
  if pos > len then return false end
  local n = struct.unpack('<B', member, pos)
  pos = pos + 1
  for _ = 1, n do
    if pos + 3 > len then return false end
    local klen = struct.unpack('<H', member, pos + 2)
    pos = pos + 4 + klen
  end
  return pos == len + 1
end

-- The nine amounts of a lease written by a build before monthly_cost (ordinal 9) was a dimension:
-- the same format 2, one double fewer.
local NINE_AMOUNTS = '<ddddddddd'

-- As amounts, for a lease any replica of the namespace may have written (expiry): during a rolling
-- upgrade a build of nine dimensions and one of ten share it, so a member that is not this build's
-- shape is read as nine amounts and no monthly cost.
local function any_amounts(member)
  if #member >= 8 * NDIM + 3 then
    local a = {struct.unpack(AMOUNTS, member)}
    if lease_tail_fits(member, a[NDIM + 1]) then
      return a, a[NDIM + 1]
    end
  end
  local old = {struct.unpack(NINE_AMOUNTS, member)}
  local a = {}
  for d = 1, NDIM do
    a[d] = d <= 9 and old[d] or 0
  end
  a[NDIM + 1] = old[10]
  return a, old[10]
end

-- Struct formats of a bucket with n dimension records, built on first use.
local formats = {}
local function format(n)
  local f = formats[n]
  if not f then
    f = HEAD .. string.rep('d', W * n) .. string.rep('B', n)
    formats[n] = f
  end
  return f
end

-- A bucket in Lua is the array of its stored values: v[1] format, v[2] record count n, v[3] last
-- refill, v[4] day, record k's nine values after index 9k - 5, then the n ordinals. Records are
-- kept with the plan's dimensions first, in plan order, so the hot paths find the k-th dimension
-- of a plan at a fixed place.
local function parse(key, s)
  local version, n = struct.unpack('<BB', s)
  if version ~= FORMAT then
    error('sluice: bucket ' .. key .. ' has format ' .. version .. ' (expected: ' .. FORMAT .. ')')
  end
  return {struct.unpack(format(n), s)}
end

local function store(v)
  local n = v[2]
  return struct.pack(format(n), unpack(v, 1, 4 + (W + 1) * n))
end

-- The index before dimension d's record, or nil.
local function find(v, d)
  local n = v[2]
  local ords = 4 + W * n
  for k = 1, n do
    if v[ords + k] == d then return W * k - 5 end
  end
  return nil
end

-- The bucket laid out for plan pl: its dimensions first, in order (an empty record, factor 1, for
-- one the bucket does not have yet), then any others the bucket holds.
local function fit(v, pl)
  local n = v[2]
  local ords = 4 + W * n
  local w = {v[1], 0, v[3], v[4]}
  local taken = {}
  local m = 0
  local function copy(o, d)
    local q = W * m + 4
    if o then
      for x = 1, W do w[q + x] = v[o + x] end
    else
      w[q + 1], w[q + 2], w[q + 3], w[q + 4], w[q + 5], w[q + 6], w[q + 7], w[q + 8], w[q + 9] = 0, 1, 0, 0, 0, 0, 0, 0, 0
    end
    m = m + 1
    taken[m] = d
  end
  for k = 1, pl.n do
    copy(find(v, pl.d[k]), pl.d[k])
  end
  for k = 1, n do
    local d = v[ords + k]
    local held = false
    for j = 1, pl.n do
      if pl.d[j] == d then held = true end
    end
    if not held then copy(W * k - 5, d) end
  end
  w[2] = m
  for k = 1, m do
    w[4 + W * m + k] = taken[k]
  end
  return w
end

-- Adds an empty record (factor 1) for dimension d; returns the index before it.
local function add(v, d)
  local n = v[2]
  local ords = 4 + W * n
  local o = ords
  local saved = {}
  for k = 1, n do saved[k] = v[ords + k] end
  v[o + 1], v[o + 2], v[o + 3], v[o + 4], v[o + 5], v[o + 6], v[o + 7], v[o + 8], v[o + 9] = 0, 1, 0, 0, 0, 0, 0, 0, 0
  saved[n + 1] = d
  n = n + 1
  v[2] = n
  for k = 1, n do v[4 + W * n + k] = saved[k] end
  return o
end

-- A call's buckets: prefetched texts by key (false: no such key), the buckets read so far by key,
-- and the order they were first read in; every change is made here and written once by flush.
local function context(raw)
  return {raw = raw, cache = {}, order = {}}
end

-- The bucket at key, laid out for plan pl when one is given. A bucket that does not exist yet
-- has no last refill (v[3] nil) until refill starts it.
local function get(ctx, key, pl)
  local v = ctx.cache[key]
  if v == nil then
    local s = ctx.raw[key]
    if s == nil then s = redis.call('GET', key) end
    if s then v = parse(key, s) else v = {FORMAT, 0, nil, 0} end
    ctx.cache[key] = v
    ctx.order[#ctx.order + 1] = key
  end
  if pl then
    local ords = 4 + W * v[2]
    local d = pl.d
    for k = 1, pl.n do
      if v[ords + k] ~= d[k] then
        v = fit(v, pl)
        ctx.cache[key] = v
        break
      end
    end
  end
  return v
end

-- Writes every bucket the call read and started, with one MSET.
local function flush(ctx)
  local kv = {}
  for _, key in ipairs(ctx.order) do
    local v = ctx.cache[key]
    if v[3] ~= nil then
      kv[#kv + 1] = key
      kv[#kv + 1] = store(v)
    end
  end
  if #kv > 0 then
    redis.call('MSET', unpack(kv))
  end
end

-- Brings rates up to now and rolls daily and monthly caps over (MemoryBucket.refill). math.min and
-- math.max are written out (same comparisons, same results) because this runs on every call.
local function refill(v, pl, now, day)
  local n, kind, cap = pl.n, pl.kind, pl.cap
  local last = v[3]
  if last == nil then
    -- A new bucket starts full.
    for k = 1, n do
      if kind[k] == 'R' then v[W * k - 5 + L] = cap[k] end
    end
    v[3], v[4] = now, day
    return
  end
  if now - last > 0 then
    local rpn = pl.rpn
    for k = 1, n do
      if kind[k] == 'R' then
        local o = W * k - 5
        local f = v[o + F]
        local from = now
        if v[o + P] < from then from = v[o + P] end
        if not (from > last) then from = last end
        local level = v[o + L] + (now - from) * rpn[k] * f
        local top = cap[k] * f
        if level < top then v[o + L] = level else v[o + L] = top end
      end
    end
    v[3] = now
  end
  if day ~= v[4] then
    -- A month is a function of the day in the reset zone, so the day alone is kept.
    local month_turned = month_of(day) ~= month_of(v[4])
    for k = 1, n do
      if kind[k] == 'D' or (month_turned and kind[k] == 'M') then v[W * k - 5 + L] = 0 end
    end
    v[4] = day
  end
end

local function available(v, o, kind, cap)
  if kind == 'R' then return v[o + L] end
  return cap - v[o + L]
end

-- Ends a lease's hold of r on the record after index o (MemoryBucket.settle).
local function settle_dim(v, o, kind, cap, r, actual)
  local kept = actual
  if r < kept then kept = r end
  v[o + O] = v[o + O] - r
  v[o + S] = v[o + S] + kept
  v[o + U] = v[o + U] + (r - kept)
  v[o + V] = v[o + V] + (actual - kept)
  if kind == 'R' then
    -- A refund never lifts a bucket above its capacity: unused tokens do not add burst.
    local top = cap * v[o + F]
    local level = v[o + L] + r - actual
    if level < top then v[o + L] = level else v[o + L] = top end
  elseif kind == 'G' then
    v[o + L] = v[o + L] - r
  else
    local level = v[o + L] + actual - r
    if level > 0 then v[o + L] = level else v[o + L] = 0 end
  end
end

local function binds(c, cur)
  if cur == nil then return true end
  if c[5] ~= cur[5] then return c[5] == 1 end
  if c[6] ~= cur[6] then return c[6] == 1 end
  local a = c[4] >= 0 and c[4] or math.huge
  local b = cur[4] >= 0 and cur[4] or math.huge
  return a > b
end

-- One that never fits names the largest request that would (MemoryBucket.shortOf).
local function shortfall(v, o, pl, k, wait, never, daily, need)
  local cap = pl.cap[k]
  return {0, pl.index, pl.d[k], wait, never and 1 or 0, daily and 1 or 0,
    math.floor(available(v, o, pl.kind[k], cap)), need, never and pl.ceil[k] or cap}
end

-- Whether need fits on the plan's k-th dimension now; if not, the shortfall (MemoryBucket.check).
-- credit: the part of a rate's minute beyond its window the request may run ahead of the refill.
-- ends: the wait of a spent cap, by kind (calendar).
local function check(v, pl, k, need, now, ends, credit)
  local cap = pl.cap[k]
  local kind = pl.kind[k]
  local o = W * k - 5
  if kind == 'R' then
    -- Above the capacity but within the ceiling (a short window's bucket), a request waits for a
    -- full bucket, an empty window.
    if need > cap and need > pl.ceil[k] then return shortfall(v, o, pl, k, -1, true, false, need) end
    local pause = 0
    if v[o + P] - now > 0 then pause = v[o + P] - now end
    local f = v[o + F]
    -- A request larger than the adapted capacity goes when the bucket is full and leaves debt.
    local required = need
    if cap * f < required then required = cap * f end
    if credit > 0 then
      -- Lent from the minute beyond the window: only a short window's bucket has any.
      required = required - credit * math.max(0, pl.ceil[k] - cap) * f
    end
    local level = v[o + L]
    if pause == 0 and level >= required - 1e-9 then return nil end
    local deficit = math.max(0, required - level)
    return shortfall(v, o, pl, k, pause + math.ceil(deficit / (pl.rpn[k] * f)), false, false, need)
  elseif kind == 'G' then
    if need > cap then return shortfall(v, o, pl, k, -1, true, false, need) end
    if v[o + L] + need <= cap then return nil end
    return shortfall(v, o, pl, k, -1, false, false, need)
  else
    if need > cap then return shortfall(v, o, pl, k, ends[kind], true, true, need) end
    if v[o + L] + need <= cap then return nil end
    return shortfall(v, o, pl, k, ends[kind], false, true, need)
  end
end

-- Whether taking need on the plan's k-th dimension leaves the headroom held back for higher
-- classes, a fraction of a rate's adapted capacity or of a gauge's capacity; if not, the shortfall
-- with what was held back as its tenth field (MemoryBucket.checkHeadroom, in the same
-- floating-point steps). Judges only what check passes; the caller keeps the longer of the two.
local function check_headroom(v, pl, k, need, now, fraction)
  local cap = pl.cap[k]
  local kind = pl.kind[k]
  if need > cap or kind == 'D' or kind == 'M' then return nil end
  local o = W * k - 5
  local level = v[o + L]
  local short
  if kind == 'R' then
    local f = v[o + F]
    local adapted = cap * f
    local required = need + fraction * adapted
    if adapted < required then required = adapted end
    if level >= required - 1e-9 then return nil end
    local pause = 0
    if v[o + P] - now > 0 then pause = v[o + P] - now end
    local own = need
    if adapted < own then own = adapted end
    short = shortfall(v, o, pl, k, pause + math.ceil((required - level) / (pl.rpn[k] * f)), false, false, need)
    short[10] = math.ceil(required - own)
  else
    local most = cap - fraction * cap
    if most < need then most = need end
    if level + need <= most then return nil end
    short = shortfall(v, o, pl, k, -1, false, false, need)
    short[10] = math.ceil(cap - most)
  end
  return short
end
