-- Leapgate's shared window: one decision, or one refund, as one atomic step in Redis.
--
-- KEYS[1]  the window's key: a hash from bucket number to the permits counted in that bucket.
-- Decide:  ARGV = 'a', permits, limit, bucket length (us), span, ttl (ms)[, now (us), for tests]
-- Refund:  ARGV = 'r', permits, bucket
--
-- Time is Redis's own (TIME), in microseconds since 2025-01-01T00:00Z, the same for every
-- instance; bucket e covers [e * length, (e + 1) * length). The window at bucket e counts
-- buckets e - span .. e, as the in-process window does (span = n strict, n - 1 sliding), and
-- admits when what it counts plus the permits stays within the limit. A window's time never moves
-- backwards: if Redis's clock does, the permits count in the newest bucket.
-- Returns {admitted (1/0), bucket, remaining, now, retry (us until the permits would fit)}.
local key = KEYS[1]
local permits = tonumber(ARGV[2])
if ARGV[1] == 'r' then
  local count = tonumber(redis.call('HGET', key, ARGV[3]))
  if count and count >= permits then
    redis.call('HINCRBY', key, ARGV[3], -permits)
  end
  return 0
end
local limit = tonumber(ARGV[3])
local length = tonumber(ARGV[4])
local span = tonumber(ARGV[5])
local now
if ARGV[7] then
  now = tonumber(ARGV[7])
else
  local t = redis.call('TIME')
  now = (tonumber(t[1]) - 1735689600) * 1000000 + tonumber(t[2])
end
local head = math.floor(now / length)
local fields = redis.call('HGETALL', key)
for i = 1, #fields, 2 do
  local b = tonumber(fields[i])
  if b > head then
    head = b
  end
end
local used = 0
local stale = {}
local counted = {}
for i = 1, #fields, 2 do
  local b = tonumber(fields[i])
  if b < head - span then
    stale[#stale + 1] = fields[i]
  else
    local c = tonumber(fields[i + 1])
    used = used + c
    counted[#counted + 1] = {b, c}
  end
end
if #stale > 0 then
  redis.call('HDEL', key, unpack(stale))
end
if used + permits > limit then
  -- The oldest buckets leave the window first: wait until enough of them have.
  table.sort(counted, function(x, y) return x[1] < y[1] end)
  local freed = 0
  local retry = 0
  for i = 1, #counted do
    freed = freed + counted[i][2]
    if used - freed + permits <= limit then
      retry = (counted[i][1] + span + 1) * length - now
      break
    end
  end
  return {0, head, math.max(0, limit - used), now, math.max(retry, 1)}
end
redis.call('HINCRBY', key, head, permits)
redis.call('PEXPIRE', key, ARGV[6])
return {1, head, limit - used - permits, now, 0}
