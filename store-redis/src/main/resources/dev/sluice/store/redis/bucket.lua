-- One bucket: its state, adaptive control, or a lowering from provider headers.
-- KEYS[1] the bucket. ARGV[A] 'state' | 'control' | 'sync', [A+1] dimension ordinal,
-- [A+2] rate factor (control) or remaining (sync), [A+3] pause ns (control), [A+4..] the plan.
local now, ms = clock()
local day = calendar(ms)
local op = ARGV[A]
local pl = plan(A + 4)
local b = load(KEYS[1])
refill(b, pl, now, day)
local d = tonumber(ARGV[A + 1])
if op == 'control' then
  put(b, FF[d], tonumber(ARGV[A + 2]))
  local pause = tonumber(ARGV[A + 3])
  if pause > 0 then put(b, FP[d], now + pause) else put(b, FP[d], 0) end
elseif op == 'sync' then
  if kind(d) == 'R' then
    put(b, FL[d], math.min(get(b, FL[d], 0), tonumber(ARGV[A + 2])))
  end
end
save(b)
if op ~= 'state' then
  return {}
end
local out = {}
for _, e in ipairs(pl.dims) do
  out[#out + 1] = {e, num(available(b, pl, e)), pl.cap[e], num(get(b, FF[e], 1)),
    math.max(0, get(b, FP[e], 0) - now), get(b, FR[e], 0), get(b, FS[e], 0), get(b, FU[e], 0),
    get(b, FE[e], 0), get(b, FO[e], 0), get(b, FV[e], 0)}
end
return out
