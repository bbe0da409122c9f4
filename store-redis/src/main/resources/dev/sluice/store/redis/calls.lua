-- The server side of the Redis quota store, part 2 of 2: the calls. State lives in the buckets
-- and lease sets described in state.lua.

-- Ends every lease of the set whose time is up, at most `limit` of them (MemoryBucket.expire):
-- rates and daily caps keep the estimate, gauges are freed. Returns how many ended.
local function reclaim(ctx, zset, now, limit)
  local due = redis.call('ZRANGEBYSCORE', zset, '-inf', num(now), 'LIMIT', 0, limit)
  for _, m in ipairs(due) do
    redis.call('ZREM', zset, m)
    local a, pos = any_amounts(m)
    local _, n
    _, n, pos = struct.unpack('<Hc0B', m, pos)
    for _ = 1, n do
      local mask, key
      mask, key, pos = struct.unpack('<HHc0', m, pos)
      local v = get(ctx, key)
      for d = 0, NDIM - 1 do
        local r = a[d + 1]
        local o = find(v, d)
        if mask % (BIT[d] * 2) >= BIT[d] and r > 0 and o then
          v[o + O] = v[o + O] - r
          v[o + E] = v[o + E] + r
          if KIND[d] == 'G' then v[o + L] = v[o + L] - r end
        end
      end
    end
  end
  return #due
end

-- Reserves amounts a on every bucket of a group, or nothing (InMemoryQuotaStore.reserve).
-- Returns {1} when granted, else {0, path index, dimension, wait, never fits, daily cap,
-- available, needed, capacity} for the binding shortfall.
-- On the buckets whose path index is set in held_mask, leaves the headroom held_fraction held back
-- for higher classes (MemoryBucket.checkHeadroom; see check_headroom in state.lua), or runs credit
-- of a short window's minute ahead of the refill (Headroom.credit; see check in state.lua).
local function reserve(ctx, set, bucket_keys, first, pls, now, day, ends, member, ttl, held_fraction,
    held_mask, credit)
  local a = amounts(member)
  local held = {}
  local binding, first_short = nil, nil
  for j = 1, #pls do
    local pl = pls[j]
    local v = get(ctx, bucket_keys[first + j - 1], pl)
    refill(v, pl, now, day)
    held[j] = v
    local d = pl.d
    local named = held_mask % (2 ^ (pl.index + 1)) >= 2 ^ pl.index
    local keep = held_fraction > 0 and named
    local lent = 0
    if named then lent = credit end
    for k = 1, pl.n do
      local need = a[d[k] + 1]
      if need > 0 then
        local short = check(v, pl, k, need, now, ends, lent)
        if keep then
          local h = check_headroom(v, pl, k, need, now, held_fraction)
          if h and binds(h, short) then short = h end
        end
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
      local v, pl = held[j], pls[j]
      for k = 1, pl.n do
        local r = a[pl.d[k] + 1]
        if r > 0 and pl.kind[k] == 'R' then
          local o = W * k - 5
          v[o + L] = math.min(pl.cap[k] * v[o + F], (v[o + L] - r) + r)
        end
      end
    end
    return binding
  end

  for j = 1, #pls do
    local v, pl = held[j], pls[j]
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
  redis.call('ZADD', set, num(now + ttl), member)
  return {1}
end

-- Ends a lease: settles it with actual usage (packed), or releases it when actual is ''
-- (InMemoryQuotaStore.end). Returns 1 if this call ended the lease, 0 if it had already ended.
local function settle(ctx, set, bucket_keys, first, pls, now, day, member, actual)
  if redis.call('ZREM', set, member) == 0 then
    return 0
  end
  local a = amounts(member)
  local release = actual == ''
  local used_by = release and a or {struct.unpack(AMOUNTS, actual)}
  -- Refunds commute with refilling, so only overage (debt below the current level) needs the
  -- buckets brought up to now first.
  local overage = false
  if not release then
    for d = 0, NDIM - 1 do
      if KIND[d] ~= 'G' and used_by[d + 1] > a[d + 1] then overage = true end
    end
  end
  for j = 1, #pls do
    local pl = pls[j]
    local v = get(ctx, bucket_keys[first + j - 1], pl)
    if overage or v[3] == nil then refill(v, pl, now, day) end
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
          used = used_by[d + 1]
          if not (used > 0) then used = 0 end
        end
        settle_dim(v, W * k - 5, kind[k], pl.cap[k], r, used)
      end
    end
  end
  return 1
end

-- Reservations and settlements of one slot, in order, as if made one by one; the answer to each
-- is what it would have been alone. Buckets are read once (MGET) and written once (MSET).
-- KEYS: per group of a path its lease set, then its buckets in path order (operations on the
-- same group share them). ARGV: calendar; the number of plan arguments g, then g plans (one per
-- group); then four per operation: '<BHBHdHdHd' kind ('r' reserve, 's' settle), index of its lease
-- set in KEYS, bucket count, index of its plans in ARGV, time to live (ns; reserve), expired
-- leases of the set to end first (reserve), headroom fraction, the mask of path indices it
-- applies to and the credit lent there (reserve); clock; the lease (member); actual usage (packed;
-- settle) or '' (release, reserve). Returns the answers in order.
local function batch(keys, args)
  local cal = args[1]
  local from = 3 + tonumber(args[2])
  local ops = (#args - from + 1) / 4
  local raw, want, budget, seen = {}, {}, {}, {}
  for i = 1, ops do
    local base = from + 4 * (i - 1)
    local kind, first, n, _, _, reclaimed = struct.unpack('<BHBHdH', args[base])
    if not seen[first] then
      seen[first] = true
      for j = first + 1, first + n do
        local key = keys[j]
        if raw[key] == nil then
          raw[key] = false
          want[#want + 1] = key
        end
      end
    end
    if kind == 114 then
      -- Sequentially every reservation would end expired leases first; the first of the set in
      -- this call ends them for all.
      local set = keys[first]
      budget[set] = (budget[set] or 0) + reclaimed
    end
  end
  local got = redis.call('MGET', unpack(want))
  for j = 1, #want do
    raw[want[j]] = got[j]
  end
  local ctx = context(raw)
  local t = {}
  local out = {}
  local day, ends, day_ms
  for i = 1, ops do
    local base = from + 4 * (i - 1)
    local kind, first, _, plan_at, ttl, _, held_fraction, held_mask, credit =
      struct.unpack('<BHBHdHdHd', args[base])
    local set = keys[first]
    local now, ms = clock(args[base + 1], t)
    if ms ~= day_ms then
      day, ends = calendar(cal, ms)
      day_ms = ms
    end
    local pls = plans(args[plan_at])
    if kind == 114 then
      local b = budget[set]
      if b > 0 then
        reclaim(ctx, set, now, b)
        budget[set] = 0
      end
      out[i] = reserve(ctx, set, keys, first + 1, pls, now, day, ends, args[base + 2], ttl, held_fraction,
        held_mask, credit)
    else
      out[i] = settle(ctx, set, keys, first + 1, pls, now, day, args[base + 2], args[base + 3])
    end
  end
  flush(ctx)
  return out
end

-- Ends leases past their time to live in one set. KEYS: the set. ARGV: clock, the most to end.
-- Returns how many ended.
local function expire(keys, args)
  local now = clock(args[1], {})
  local ctx = context({})
  local n = reclaim(ctx, keys[1], now, tonumber(args[2]))
  flush(ctx)
  return n
end

-- Adaptive control merged over the fleet: each replica's latest proposal for a dimension (factor,
-- pause end, fresh until) is kept in the bucket's control table; the bucket runs at the lowest
-- fresh factor and stays paused until the latest fresh pause end. A replica raising its own factor
-- or lifting its own pause never undoes another's cut or pause while that one is fresh.
-- Returns the merged factor and pause end.
local function merged_control(table_key, me, d, factor, pause_until, now, fresh_for)
  redis.call('HSET', table_key, me .. ':' .. d, num(factor) .. ',' .. num(pause_until) .. ',' .. num(now + fresh_for))
  local entries = redis.call('HGETALL', table_key)
  for i = 1, #entries, 2 do
    local id = entries[i]
    local ed = tonumber(string.match(id, ':(%d+)$'))
    local ef, eu, ex = string.match(entries[i + 1], '([^,]+),([^,]+),([^,]+)')
    if tonumber(ex) <= now then
      redis.call('HDEL', table_key, id)
    elseif ed == d then
      factor = math.min(factor, tonumber(ef))
      pause_until = math.max(pause_until, tonumber(eu))
    end
  end
  return factor, pause_until
end

-- One bucket: its state, adaptive control, or a lowering from provider headers.
-- KEYS: the bucket, and for 'control' the bucket's control table. ARGV: clock, calendar,
-- 'state' | 'control' | 'sync', dimension ordinal, rate factor (control) or remaining (sync),
-- pause ns (control), plan; for 'control' also the replica id and how long a proposal stays fresh (ns).
local function bucket(keys, args)
  local now, ms = clock(args[1], {})
  local day = calendar(args[2], ms)
  local op = args[3]
  local pl = plans(args[7])[1]
  local ctx = context({})
  local v = get(ctx, keys[1], pl)
  refill(v, pl, now, day)
  local d = tonumber(args[4])
  if op == 'control' or (op == 'sync' and KIND[d] == 'R') then
    -- A dimension outside the plan still has its state, as in MemoryBucket.
    local o = find(v, d) or add(v, d)
    if op == 'control' then
      local pause = tonumber(args[6])
      local until_ = 0
      if pause > 0 then until_ = now + pause end
      local f = tonumber(args[5])
      if keys[2] then
        f, until_ = merged_control(keys[2], args[8], d, f, until_, now, tonumber(args[9]))
      end
      v[o + F] = f
      if until_ > now then v[o + P] = until_ else v[o + P] = 0 end
      -- A lower factor lowers the capacity at once, as MemoryBucket.control does.
      for k = 1, pl.n do
        if pl.d[k] == d and KIND[d] == 'R' then v[o + L] = math.min(v[o + L], pl.cap[k] * v[o + F]) end
      end
    else
      v[o + L] = math.min(v[o + L], tonumber(args[5]))
    end
  end
  flush(ctx)
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
  local now = clock(args[1], {})
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

-- The fleet view: each replica's latest publication (what it has queued per deployment and class,
-- its own adaptive mode per deployment), kept while fresh.
-- KEYS: the fleet table. ARGV: clock, replica id, how long the publication stays fresh (ns), the
-- publication ('' to leave the fleet).
-- Returns {now, then replica id and publication of every other fresh replica}.
local function fleet(keys, args)
  local now = clock(args[1], {})
  local me = args[2]
  if args[4] == '' then
    redis.call('HDEL', keys[1], me)
  else
    redis.call('HSET', keys[1], me, num(now + tonumber(args[3])) .. '\n' .. args[4])
  end
  local entries = redis.call('HGETALL', keys[1])
  local out = {num(now)}
  for i = 1, #entries, 2 do
    local id = entries[i]
    local nl = string.find(entries[i + 1], '\n', 1, true)
    local expires = tonumber(string.sub(entries[i + 1], 1, nl - 1))
    if expires <= now then
      redis.call('HDEL', keys[1], id)
    elseif id ~= me then
      out[#out + 1] = id
      out[#out + 1] = string.sub(entries[i + 1], nl + 1)
    end
  end
  return out
end
