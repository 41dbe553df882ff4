-- Leapgate's shared window: one decision, or one refund, as one atomic step in Redis.
--
-- KEYS[1]  the window's key. Its value is text: "<head>;<c0>,<c1>,...|<older>", the newest
--          bucket's number in hexadecimal, the permits counted in it and in each older bucket of
--          the window in decimal, newest first (trailing zeros left out), and the sum of c1, c2,
--          ... (left out with them when only c0 counts): "39207d0;1", "39207da;3,0,1|1". With
--          6 s buckets (the default window's) a full window of 11 buckets counting two digits each
--          is 44 bytes, which Redis keeps in one allocation with its object; a longer string takes
--          a second (10 to 16 bytes more, MEMORY USAGE on Redis 6.2 and 7.0). Earlier builds wrote
--          the head followed by ':' (in decimal; for a day, in hexadecimal): such a value is not
--          read (its window starts afresh), where a decimal head read as hexadecimal would lie
--          decades ahead. An admission into a new window, or into a window whose newest bucket is
--          current, reads head, c0 and older and rewrites c0 alone; an admission into a window that
--          has moved on cuts the counts that fall out off the text and subtracts them from the sum
--          (the common cases: no list parsed into a table or rebuilt from one); a rejection,
--          several decisions at once and a refund read the whole list.
-- Decide:  ARGV = 'a', permits (one number, or several separated by commas: decisions made one
--          after the other, at the same instant), limit, bucket length (us), span, ttl (ms)
--          [, now (us), for tests, or '' [, the previous bucket length (us), the previous span]]
-- KEYS[2]  (optional, with the previous shape) the key of the rule's previous version, of another
--          window: while KEYS[1] holds nothing, a decision starts from all that KEYS[2] counts now,
--          placed in this window's bucket in which that window's current bucket ends (no permit
--          then counts for less long than this window from when it was admitted), so that a
--          changed window is no fresh allowance. A KEYS[1] that exists (a rule changed back to a
--          shape it had within a window: A, B, A again) takes what KEYS[2] counts now into the
--          bucket in which KEYS[2]'s newest bucket ends, if that is after its own newest: it lacks
--          what was counted there since it was last written, and once it is written at that
--          bucket or after, it takes nothing more of it; if that is its own newest bucket, KEYS[2]
--          may have been written after it there (a change to a finer window and back within one
--          of its buckets), so it takes it unless KEYS[3] says it has. KEYS[2] is only read.
-- KEYS[3]  (with KEYS[2]) what KEYS[1] took of KEYS[2]: KEYS[2]'s newest bucket then, written with
--          KEYS[1]'s TTL by the admission that wrote what it took.
-- Refund:  ARGV = 'r', permits, bucket
--
-- Time is Redis's own (TIME), in microseconds since 2025-01-01T00:00Z, the same for every
-- instance; bucket e covers [e * length, (e + 1) * length). The window at bucket e counts buckets
-- e - span .. e, as the in-process window does (span = n strict, n - 1 sliding), and admits when
-- what it counts plus the permits stays within the limit. A window's time never moves backwards:
-- if Redis's clock does, the permits count in the newest bucket. A clock before the origin is an
-- error: nothing is decided.
-- TTL: every write that sets the newest bucket is made during it, with a TTL of span + 2 buckets
-- (ARGV[6], ms), so the key outlives every count in it by a bucket; an admission into the
-- current bucket keeps the TTL it has (KEEPTTL), and a write made while Redis's clock is behind
-- the newest bucket adds the difference to the TTL.
-- Returns {bucket, now} and, per decision, {admitted (1/0), remaining, retry (us until its
-- permits would fit; 0 when admitted)}.
local key = KEYS[1]
local value = redis.call('GET', key)
local refund = ARGV[1] == 'r'

local limit, length, span, now, e
-- Whether `value` came from KEYS[2]: KEYS[1] is then written as a new key, with its TTL.
local inherited = false
-- What KEYS[1], existing, takes of KEYS[2]: the bucket, and the count, or nil.
local merged, mergedCount
-- KEYS[2]'s newest bucket (its text), when KEYS[1] takes what KEYS[2] counts: for KEYS[3].
local took
if not refund then
  limit = tonumber(ARGV[3])
  length = tonumber(ARGV[4])
  span = tonumber(ARGV[5])
  if ARGV[7] and ARGV[7] ~= '' then
    now = tonumber(ARGV[7])
  else
    local t = redis.call('TIME')
    now = (tonumber(t[1]) - 1735689600) * 1000000 + tonumber(t[2])
  end
  if now < 0 then
    -- Negative bucket numbers would be written that the next call cannot read (the window
    -- would start afresh at every call), and answered as tokens that mean rejections.
    return redis.error_reply("ERR Leapgate: Redis's clock reads " .. math.ceil(-now / 1000000)
      .. " s before 2025-01-01T00:00Z, the store's time origin: set the clock of Redis's host")
  end
  e = math.floor(now / length)

  -- A new key of a changed window: from what the previous version's key counts, if anything.
  if not value and KEYS[2] then
    local old = redis.call('GET', KEYS[2])
    local oh, olist
    if old then
      oh, olist = string.match(old, '^(%x+);([%d,]+)')
    end
    if oh then
      local olength = tonumber(ARGV[8])
      local ohead = tonumber(oh, 16)
      local at = math.max(math.floor(now / olength), ohead)
      local counted, bucket = 0, ohead
      for c in string.gmatch(olist, '%d+') do
        if bucket >= at - tonumber(ARGV[9]) then
          counted = counted + tonumber(c)
        end
        bucket = bucket - 1
      end
      if counted > 0 then
        value = string.format('%x', math.floor(((at + 1) * olength - 1) / length)) .. ';' .. counted
        inherited = true
        took = oh
      end
    end
  elseif KEYS[2] then
    -- An existing key of a changed window: what the previous shape's key counted since this one
    -- was last written (and, conservatively, what it took from this one before) is not in it.
    local h = string.match(value, '^(%x+);')
    local old = redis.call('GET', KEYS[2])
    local oh, olist
    if h and old then
      oh, olist = string.match(old, '^(%x+);([%d,]+)')
    end
    if oh then
      local olength = tonumber(ARGV[8])
      local ohead = tonumber(oh, 16)
      -- Placed by the previous key's newest bucket, not by now: a later decision finds this
      -- key written at that bucket or after, and takes nothing more.
      local at = math.floor(((ohead + 1) * olength - 1) / length)
      local head = tonumber(h, 16)
      if at > head or (at == head and KEYS[3] and redis.call('GET', KEYS[3]) ~= oh) then
        local from = math.max(math.floor(now / olength), ohead) - tonumber(ARGV[9])
        local counted, bucket = 0, ohead
        for c in string.gmatch(olist, '%d+') do
          if bucket >= from then
            counted = counted + tonumber(c)
          end
          bucket = bucket - 1
        end
        if counted > 0 then
          merged, mergedCount = at, counted
          took = oh
        end
      end
    end
  end

  -- The common cases: one decision that fits, in a new window or in the current bucket.
  if not inherited and not merged and not string.find(ARGV[2], ',', 1, true) then
    local permits = tonumber(ARGV[2])
    if not value then
      if permits <= limit then
        redis.call('SET', key, string.format('%x', e) .. ';' .. permits, 'PX', ARGV[6])
        return {e, now, 1, limit - permits, 0}
      end
    else
      local h, c0, rest = string.match(value, '^(%x+);(%d+)(.*)$')
      local older = h and (rest == '' and 0 or tonumber(string.match(rest, '|(%d+)$')))
      local head = older and tonumber(h, 16)
      if head == e then
        local used = tonumber(c0) + older + permits
        if used <= limit then
          redis.call('SET', key, h .. ';' .. (tonumber(c0) + permits) .. rest, 'KEEPTTL')
          return {e, now, 1, limit - used, 0}
        end
      elseif head and head < e then
        -- The window moved on by `shift` buckets: the counts that stay are the first
        -- span + 1 - shift of the list; those after them fall out, and so does their sum.
        local shift = e - head
        local kept, counted = '', 0
        if shift <= span then
          kept = c0 .. (string.match(rest, '^(.*)|') or '')
          counted = tonumber(c0) + older
          local cut = 0
          for _ = 1, span + 1 - shift do
            cut = string.find(kept, ',', cut + 1, true)
            if not cut then
              break
            end
          end
          if cut then
            for c in string.gmatch(string.sub(kept, cut + 1), '%d+') do
              counted = counted - tonumber(c)
            end
            kept = string.sub(kept, 1, cut - 1)
          end
        end
        if counted + permits <= limit then
          local text = string.format('%x', e) .. ';' .. permits
          if counted > 0 then
            while string.sub(kept, -2) == ',0' do
              kept = string.sub(kept, 1, -3)
            end
            text = text .. string.rep(',0', shift - 1) .. ',' .. kept .. '|' .. counted
          end
          redis.call('SET', key, text, 'PX', ARGV[6])
          return {e, now, 1, limit - counted - permits, 0}
        end
      end
    end
  end
end

-- Otherwise, the whole window.
local head = -1
local counts = {}
if value then
  local h, list = string.match(value, '^(%x+);([%d,]+)')
  if h then
    head = tonumber(h, 16)
    for c in string.gmatch(list, '%d+') do
      counts[#counts + 1] = tonumber(c)
    end
  end
end

local function store(...)
  local n = #counts
  while n > 1 and counts[n] == 0 do
    counts[n] = nil
    n = n - 1
  end
  local older = 0
  for i = 2, n do
    older = older + counts[i]
  end
  local text = string.format('%x', head) .. ';' .. table.concat(counts, ',')
  if n > 1 then
    text = text .. '|' .. older
  end
  redis.call('SET', key, text, ...)
end

if refund then
  local permits = tonumber(ARGV[2])
  local i = head - tonumber(ARGV[3]) + 1
  if i >= 1 and counts[i] and counts[i] >= permits then
    counts[i] = counts[i] - permits
    store('KEEPTTL')
  end
  return 0
end

-- Roll the window on to bucket `to`: to - head empty buckets in front, the oldest fall out.
local function roll(to)
  local shift = to - head
  local rolled = {}
  for i = 1, span + 1 do
    local old = i - shift
    rolled[i] = (old >= 1 and counts[old]) or 0
  end
  counts = rolled
  head = to
end

if merged then
  roll(merged) -- after the head (see above)
  counts[1] = counts[1] + mergedCount
end
if e > head then
  roll(e)
end
local used = 0
for i = 1, span + 1 do
  used = used + (counts[i] or 0)
  counts[i] = counts[i] or 0
end
local reply = {head, now}
local admitted = false
for p in string.gmatch(ARGV[2], '%d+') do
  local permits = tonumber(p)
  if used + permits <= limit then
    used = used + permits
    counts[1] = counts[1] + permits
    admitted = true
    reply[#reply + 1] = 1
    reply[#reply + 1] = limit - used
    reply[#reply + 1] = 0
  else
    -- The oldest buckets leave the window first: wait until enough of them have.
    local freed = 0
    local retry = 1
    for i = span + 1, 1, -1 do
      freed = freed + counts[i]
      if used - freed + permits <= limit then
        retry = (head - i + 1 + span + 1) * length - now
        break
      end
    end
    reply[#reply + 1] = 0
    reply[#reply + 1] = math.max(0, limit - used)
    reply[#reply + 1] = math.max(retry, 1)
  end
end
if admitted then
  -- Made during the newest bucket, or before it if Redis's clock went back: then for longer.
  local ttl = tonumber(ARGV[6]) + math.max(0, math.ceil((head * length - now) / 1000))
  store('PX', ttl)
  if took and KEYS[3] then
    redis.call('SET', KEYS[3], took, 'PX', ttl)
  end
end
return reply
