-- Leapgate's heartbeat: counts one instance in, and the instances that counted themselves in lately.
--
-- KEYS[1]  the sorted set of instances: each member an instance's id, its score the time of its
--          last heartbeat (ms, Redis's TIME).
-- ARGV[1]  this instance's id
-- ARGV[2]  how long an instance counts after its last heartbeat (ms); also the key's TTL
--
-- Time is Redis's, never an instance's: with the instances' own clocks, one running 10 s behind
-- the others would be dropped by each of their heartbeats and never counted.
-- Returns the number of instances counted.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - expiry))
redis.call('PEXPIRE', KEYS[1], expiry)
return redis.call('ZCARD', KEYS[1])
