-- The server side of the Redis quota store: one library of functions, loaded once (FUNCTION LOAD)
-- or, on a server without functions, sent as one script per entry point (EVALSHA). It mirrors
-- dev.sluice.store.MemoryBucket step for step, so a bucket in Redis and a bucket in memory give the
-- same numbers for the same calls.
--
-- Values are packed with the struct library (little-endian): doubles keep every bit, and reading
-- or writing a bucket is one call for the whole path (MGET, MSET) with no text conversion.
--
-- A bucket (string): '<BBdd' format, number of dimension records n, last refill (ns), day number;
-- then n records of nine doubles (level, rate factor, paused until (ns), reserved, settled,
-- refunded, expired, open, overage); then n bytes, the dimension ordinal of each record.
--
-- A lease is a member of its group's sorted set, scored by expiry, and carries what ending it
-- needs: '<H' + id, the amount per dimension (doubles), '<B' bucket count, then per bucket '<H'
-- mask of the dimensions taken and '<H' + key.
--
-- Plans (argument): per bucket '<BB' path index and dimension count, then per dimension '<Bdd'
-- ordinal, capacity, refill per nanosecond.
--
-- Clock (argument): '' to read the server's clock (TIME), else '<dd' now (ns) and epoch ms.
-- Calendar (argument): '<dddddd' epoch-day of the first midnight and five consecutive midnights
-- (epoch ms) of the reset zone, oldest first.

local FORMAT = 2
-- Server time is counted from 2026-01-01T00:00:00Z so nanoseconds stay exact in a double for
-- months and within a few nanoseconds for decades.
local EPOCH_BASE = 1767225600
-- Per dimension ordinal its kind (R rate, G gauge, D daily cap), the dimension count and the
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

local function num(x)
  return string.format('%.17g', x)
end

local function clock(arg)
  if arg ~= '' then
    return struct.unpack('<dd', arg)
  end
  local t = redis.call('TIME')
  local sec, usec = tonumber(t[1]), tonumber(t[2])
  return (sec - EPOCH_BASE) * 1e9 + usec * 1000, sec * 1000 + math.floor(usec / 1000)
end

-- Today's number in the reset zone and nanoseconds to its next midnight.
local function calendar(arg, ms)
  local d0, m0, m1, m2, m3, m4 = struct.unpack('<dddddd', arg)
  if ms >= m0 and ms < m4 then
    if ms < m1 then return d0, (m1 - ms) * 1000000 end
    if ms < m2 then return d0 + 1, (m2 - ms) * 1000000 end
    if ms < m3 then return d0 + 2, (m3 - ms) * 1000000 end
    return d0 + 3, (m4 - ms) * 1000000
  end
  -- More than a day away from the caller's calendar: count plain 24-hour days.
  local n = math.floor((ms - m0) / 86400000)
  return d0 + n, (m0 + (n + 1) * 86400000 - ms) * 1000000
end

-- Parsed plans by their packed text. The same paths come again and again, and a function
-- library stays loaded between calls, so each is parsed once; the cache is a pure function of
-- its keys and is dropped when it grows large.
local plan_cache, plan_cached = {}, 0

-- The plans of a group: per bucket {index, n, d = ordinals, kind, cap, rpn}, the last four by
-- position 1..n. Callers never change them.
local function plans(arg)
  local out = plan_cache[arg]
  if out then return out end
  out = {}
  local pos, last = 1, string.len(arg)
  while pos <= last do
    local index, n
    index, n, pos = struct.unpack('<BB', arg, pos)
    local pl = {index = index, n = n, d = {}, kind = {}, cap = {}, rpn = {}}
    for k = 1, n do
      local d, cap, rpn
      d, cap, rpn, pos = struct.unpack('<Bdd', arg, pos)
      pl.d[k], pl.kind[k], pl.cap[k], pl.rpn[k] = d, KIND[d], cap, rpn
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

-- The amounts of a lease (indexed by ordinal + 1) and the position after them.
local function amounts(member)
  local id_len = struct.unpack('<H', member)
  local a = {struct.unpack(AMOUNTS, member, 3 + id_len)}
  return a, a[NDIM + 1]
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

-- A bucket for plan pl from its stored text (nil: a new bucket, marked by t = nil).
local function load(key, s, pl)
  if not s then
    return fit({FORMAT, 0, nil, 0}, pl)
  end
  local v = parse(key, s)
  local ords = 4 + W * v[2]
  local d = pl.d
  for k = 1, pl.n do
    if v[ords + k] ~= d[k] then return fit(v, pl) end
  end
  return v
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

-- Brings rates up to now and rolls daily caps over (MemoryBucket.refill). math.min and
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
    for k = 1, n do
      if kind[k] == 'D' then v[W * k - 5 + L] = 0 end
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

-- Ends every lease of the set whose time is up, at most `limit` of them (MemoryBucket.expire):
-- rates and daily caps keep the estimate, gauges are freed. Returns how many ended.
local function reclaim(zset, now, limit)
  local due = redis.call('ZRANGEBYSCORE', zset, '-inf', num(now), 'LIMIT', 0, limit)
  for _, m in ipairs(due) do
    redis.call('ZREM', zset, m)
    local a, pos = amounts(m)
    local n
    n, pos = struct.unpack('<B', m, pos)
    for _ = 1, n do
      local mask, key
      mask, key, pos = struct.unpack('<HHc0', m, pos)
      local s = redis.call('GET', key)
      if s then
        local v = parse(key, s)
        for d = 0, NDIM - 1 do
          local r = a[d + 1]
          local o = find(v, d)
          if mask % (BIT[d] * 2) >= BIT[d] and r > 0 and o then
            v[o + O] = v[o + O] - r
            v[o + E] = v[o + E] + r
            if KIND[d] == 'G' then v[o + L] = v[o + L] - r end
          end
        end
        redis.call('SET', key, store(v))
      end
    end
  end
  return #due
end

local function save_all(keys, buckets)
  local kv = {}
  for j = 1, #buckets do
    kv[2 * j - 1] = keys[j + 1]
    kv[2 * j] = store(buckets[j])
  end
  redis.call('MSET', unpack(kv))
end

local function binds(c, cur)
  if cur == nil then return true end
  if c[5] ~= cur[5] then return c[5] == 1 end
  if c[6] ~= cur[6] then return c[6] == 1 end
  local a = c[4] >= 0 and c[4] or math.huge
  local b = cur[4] >= 0 and cur[4] or math.huge
  return a > b
end

local function shortfall(v, o, pl, k, wait, never, daily, need)
  local cap = pl.cap[k]
  return {0, pl.index, pl.d[k], wait, never and 1 or 0, daily and 1 or 0,
    math.floor(available(v, o, pl.kind[k], cap)), need, cap}
end

-- Whether need fits on the plan's k-th dimension now; if not, the shortfall (MemoryBucket.check).
local function check(v, pl, k, need, now, to_midnight)
  local cap = pl.cap[k]
  local kind = pl.kind[k]
  local o = W * k - 5
  if kind == 'R' then
    if need > cap then return shortfall(v, o, pl, k, -1, true, false, need) end
    local pause = 0
    if v[o + P] - now > 0 then pause = v[o + P] - now end
    local f = v[o + F]
    -- A request larger than the adapted capacity goes when the bucket is full and leaves debt.
    local required = need
    if cap * f < required then required = cap * f end
    local level = v[o + L]
    if pause == 0 and level >= required - 1e-9 then return nil end
    local deficit = math.max(0, required - level)
    return shortfall(v, o, pl, k, pause + math.ceil(deficit / (pl.rpn[k] * f)), false, false, need)
  elseif kind == 'G' then
    if need > cap then return shortfall(v, o, pl, k, -1, true, false, need) end
    if v[o + L] + need <= cap then return nil end
    return shortfall(v, o, pl, k, -1, false, false, need)
  else
    if need > cap then return shortfall(v, o, pl, k, to_midnight, true, true, need) end
    if v[o + L] + need <= cap then return nil end
    return shortfall(v, o, pl, k, to_midnight, false, true, need)
  end
end

-- Reserves a lease's amounts on every bucket of a group, or nothing (InMemoryQuotaStore.reserve).
-- KEYS: the group's lease set, then its buckets in path order. ARGV: clock, calendar, the lease
-- (member), time to live (ns), expired leases to end first, plans.
-- Returns {1} when granted, else {0, path index, dimension, wait, never fits, daily cap,
-- available, needed, capacity} for the binding shortfall.
local function reserve(keys, args)
  local now, ms = clock(args[1])
  local day, to_midnight = calendar(args[2], ms)
  local budget = tonumber(args[5])
  if budget > 0 then
    reclaim(keys[1], now, budget)
  end
  local member = args[3]
  local a = amounts(member)
  local pls = plans(args[6])
  local raw = redis.call('MGET', unpack(keys, 2))
  local buckets = {}
  local binding, first_short = nil, nil
  for j = 1, #pls do
    local pl = pls[j]
    local v = load(keys[j + 1], raw[j], pl)
    refill(v, pl, now, day)
    buckets[j] = v
    local d = pl.d
    for k = 1, pl.n do
      local need = a[d[k] + 1]
      if need > 0 then
        local short = check(v, pl, k, need, now, to_midnight)
        if short then
          first_short = first_short or j
          if binds(short, binding) then binding = short end
        end
      end
    end
  end

  if binding then
    -- The in-memory store takes on the buckets before the first short one and gives back on the
    -- shortfall, which leaves a rate no higher than its adapted capacity: the same here, in
    -- the same floating-point steps.
    for j = 1, first_short - 1 do
      local v, pl = buckets[j], pls[j]
      for k = 1, pl.n do
        local r = a[pl.d[k] + 1]
        if r > 0 and pl.kind[k] == 'R' then
          local o = W * k - 5
          v[o + L] = math.min(pl.cap[k] * v[o + F], (v[o + L] - r) + r)
        end
      end
    end
    save_all(keys, buckets)
    return binding
  end

  for j = 1, #pls do
    local v, pl = buckets[j], pls[j]
    local d, kind = pl.d, pl.kind
    for k = 1, pl.n do
      local r = a[d[k] + 1]
      if r > 0 then
        local o = W * k - 5
        if kind[k] == 'R' then
          v[o + L] = v[o + L] - r
        else
          v[o + L] = v[o + L] + r
        end
        v[o + R] = v[o + R] + r
        v[o + O] = v[o + O] + r
      end
    end
  end
  save_all(keys, buckets)
  redis.call('ZADD', keys[1], num(now + tonumber(args[4])), member)
  return {1}
end

-- Ends a lease: settles it with actual usage, or releases it (InMemoryQuotaStore.end).
-- KEYS: the group's lease set, then the lease's buckets in path order. ARGV: clock, calendar,
-- the lease (member), 's' to settle or 'r' to release, actual usage (doubles), plans.
-- Returns 1 if this call ended the lease, 0 if it had already ended.
local function settle(keys, args)
  local member = args[3]
  if redis.call('ZREM', keys[1], member) == 0 then
    return 0
  end
  local a = amounts(member)
  local release = args[4] == 'r'
  local actual = release and a or {struct.unpack(AMOUNTS, args[5])}
  local now, ms = clock(args[1])
  local day = calendar(args[2], ms)
  local pls = plans(args[6])
  local raw = redis.call('MGET', unpack(keys, 2))
  local buckets = {}
  for j = 1, #pls do
    local pl = pls[j]
    local v = load(keys[j + 1], raw[j], pl)
    refill(v, pl, now, day)
    buckets[j] = v
    local kind = pl.kind
    for k = 1, pl.n do
      local d = pl.d[k]
      local r = a[d + 1]
      if r > 0 then
        local used
        if kind[k] == 'G' then
          used = r
        elseif release then
          used = 0
        else
          used = actual[d + 1]
          if not (used > 0) then used = 0 end
        end
        settle_dim(v, W * k - 5, kind[k], pl.cap[k], r, used)
      end
    end
  end
  save_all(keys, buckets)
  return 1
end

-- Ends leases past their time to live in one set. KEYS: the set. ARGV: clock, the most to end.
-- Returns how many ended.
local function expire(keys, args)
  local now = clock(args[1])
  return reclaim(keys[1], now, tonumber(args[2]))
end

-- One bucket: its state, adaptive control, or a lowering from provider headers.
-- KEYS: the bucket. ARGV: clock, calendar, 'state' | 'control' | 'sync', dimension ordinal,
-- rate factor (control) or remaining (sync), pause ns (control), plan.
local function bucket(keys, args)
  local now, ms = clock(args[1])
  local day = calendar(args[2], ms)
  local op = args[3]
  local pl = plans(args[7])[1]
  local v = load(keys[1], redis.call('GET', keys[1]), pl)
  refill(v, pl, now, day)
  local d = tonumber(args[4])
  if op == 'control' or (op == 'sync' and KIND[d] == 'R') then
    -- A dimension outside the plan still has its state, as in MemoryBucket.
    local o = find(v, d) or add(v, d)
    if op == 'control' then
      v[o + F] = tonumber(args[5])
      local pause = tonumber(args[6])
      if pause > 0 then v[o + P] = now + pause else v[o + P] = 0 end
    else
      v[o + L] = math.min(v[o + L], tonumber(args[5]))
    end
  end
  redis.call('SET', keys[1], store(v))
  if op ~= 'state' then
    return {}
  end
  local out = {}
  for k = 1, pl.n do
    local o = W * k - 5
    out[k] = {pl.d[k], num(available(v, o, pl.kind[k], pl.cap[k])), pl.cap[k], num(v[o + F]),
      math.max(0, v[o + P] - now), v[o + R], v[o + S], v[o + U], v[o + E], v[o + O], v[o + V]}
  end
  return out
end

-- Leased mode: renews this replica's share of one bucket (after Doorman's proportional shares).
-- KEYS: the bucket's share table (field per replica: "grant,demand,expires"), the bucket.
-- ARGV: clock, replica id, its demand (any unit, the same for every replica), lease length (ns),
-- '1' to give the share back, then dimension ordinals to report on.
-- Shares of live replicas never add up to more than 1: a replica gets at most what the others do
-- not hold, and a share held by a replica that stopped renewing is freed when its lease ends.
-- Returns {grant, then factor and pause left (ns) per dimension asked}.
local function share(keys, args)
  local now = clock(args[1])
  local me = args[2]
  local demand = tonumber(args[3])
  local entries = redis.call('HGETALL', keys[1])
  local others, total, live = 0, demand, 1
  for i = 1, #entries, 2 do
    local id = entries[i]
    if id ~= me then
      local g, dm, exp = string.match(entries[i + 1], '([^,]+),([^,]+),([^,]+)')
      if tonumber(exp) <= now then
        redis.call('HDEL', keys[1], id)
      else
        others = others + tonumber(g)
        total = total + tonumber(dm)
        live = live + 1
      end
    end
  end
  if args[5] == '1' then
    redis.call('HDEL', keys[1], me)
    return {'0'}
  end
  local target
  if total > 0 then target = demand / total else target = 1 / live end
  local grant = math.max(0, math.min(target, 1 - others))
  redis.call('HSET', keys[1], me, num(grant) .. ',' .. num(demand) .. ',' .. num(now + tonumber(args[4])))
  local s = redis.call('GET', keys[2])
  local v = s and parse(keys[2], s)
  local out = {num(grant)}
  for j = 6, #args do
    local o = v and find(v, tonumber(args[j]))
    out[#out + 1] = num(o and v[o + F] or 1)
    out[#out + 1] = num(math.max(0, (o and v[o + P] or 0) - now))
  end
  return out
end
