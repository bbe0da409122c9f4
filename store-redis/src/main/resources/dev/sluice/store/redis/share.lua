-- Leased mode: renews this replica's share of one bucket (after Doorman's proportional shares).
-- KEYS[1] the bucket's share table (field per replica: "grant,demand,expires"), KEYS[2] the bucket.
-- ARGV[A] replica id, [A+1] its demand (any unit, the same for every replica), [A+2] lease
-- length (ns), [A+3] '1' to give the share back, [A+4..] dimension ordinals to report on.
-- Shares of live replicas never add up to more than 1: a replica gets at most what the others do
-- not hold, and a share held by a replica that stopped renewing is freed when its lease ends.
-- Returns {grant, then factor and pause left (ns) per dimension asked}.
local now = clock()
local me = ARGV[A]
local demand = tonumber(ARGV[A + 1])
local entries = redis.call('HGETALL', KEYS[1])
local others, total, live = 0, demand, 1
for i = 1, #entries, 2 do
  local id = entries[i]
  if id ~= me then
    local g, dm, exp = string.match(entries[i + 1], '([^,]+),([^,]+),([^,]+)')
    if tonumber(exp) <= now then
      redis.call('HDEL', KEYS[1], id)
    else
      others = others + tonumber(g)
      total = total + tonumber(dm)
      live = live + 1
    end
  end
end
if ARGV[A + 3] == '1' then
  redis.call('HDEL', KEYS[1], me)
  return {'0'}
end
local target
if total > 0 then target = demand / total else target = 1 / live end
local grant = math.max(0, math.min(target, 1 - others))
redis.call('HSET', KEYS[1], me, num(grant) .. ',' .. num(demand) .. ',' .. num(now + tonumber(ARGV[A + 2])))
local out = {num(grant)}
for i = A + 4, #ARGV do
  local d = tonumber(ARGV[i])
  local f = redis.call('HGET', KEYS[2], FF[d])
  local p = redis.call('HGET', KEYS[2], FP[d])
  out[#out + 1] = f or '1'
  out[#out + 1] = num(math.max(0, (tonumber(p) or 0) - now))
end
return out
