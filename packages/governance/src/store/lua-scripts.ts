import { OUTBOX_PUSH_LUA } from "../outbox/redis-outbox.js";

/**
 * The scripts of the Redis store: everything a call needs on the way in (authentication, status,
 * team, model allow-list, rpm/tpm, budgets, concurrency lease, reservation) in one, the
 * settlement in another, and the renewal of a long call's lease. Every key a script touches
 * shares one hash tag (the team's, or the key's when it has none), so each runs in one slot of a
 * cluster. Each script checks every argument (and decodes every record) before its first write:
 * an argument it cannot count is refused whole, never half applied.
 */

/**
 * Shared by the scripts: `int(index)` reads ARGV[index] as an integer in [-(2^53-1), 2^53-1]
 * (what HINCRBY and a Lua number both hold exactly), or nil.
 */
const ARGUMENT_CHECK = `
local LIMIT = 9007199254740991
local function int(index)
  local value = tonumber(ARGV[index])
  if value == nil or value ~= value or value % 1 ~= 0 or value > LIMIT or value < -LIMIT then return nil end
  return value
end
`;

/**
 * KEYS, per scope (the key, then its team when it has one): record, lease, minute, then its
 * counters of the day, week, month and total windows; last, the tag's open calls (`calls`) and
 * their lease expiries (`calls:due`).
 *
 * ARGV: digest, now, model, estimated tokens, estimated pico-dollars, seconds to the day, week
 * and month resets, seconds to the next minute, lease id, lease expiry (ms), day, week and month
 * counter expiries (ms), the unpriced model ('' when priced), lease record retention (ms), the
 * call's record for the sweeper (JSON ending in `}`; the key's `user` is appended here), the
 * call's kind ('tool' for an MCP tool call, else '').
 * (The window ids are in the counters' key names.)
 */
export const ADMIT_SCRIPT = `${ARGUMENT_CHECK}
local NUMERIC = { [2] = 'now', [4] = 'estimatedTokens', [5] = 'estimatedPicoUsd', [6] = 'dayReset', [7] = 'weekReset',
  [8] = 'monthReset', [9] = 'toMinute', [11] = 'leaseUntil', [12] = 'dayExpiry', [13] = 'weekExpiry', [14] = 'monthExpiry',
  [16] = 'retention' }
for index, name in pairs(NUMERIC) do
  local value = int(index)
  if value == nil or value < 0 then return { 'invalid_argument', '', name } end
end
local scopeKeys = #KEYS - 2
if ARGV[10] == nil or ARGV[10] == '' or scopeKeys < 7 or scopeKeys % 7 ~= 0 then return { 'invalid_argument', '', 'keys' } end
local callRecord = ARGV[17] or ''
if callRecord ~= '' and (string.sub(callRecord, 1, 1) ~= '{' or string.sub(callRecord, -1) ~= '}') then
  return { 'invalid_argument', '', 'call' }
end
local digest, model, leaseId, unpriced = ARGV[1], ARGV[3], ARGV[10], ARGV[15] or ''
local calls, callsDue = KEYS[#KEYS - 1], KEYS[#KEYS]
local now, estTokens, estPico, toMinute, leaseUntil, retention = int(2), int(4), int(5), int(9), int(11), int(16)
local resets = { day = int(6), week = int(7), month = int(8) }
local expiries = { int(12), int(13), int(14) }

-- A record lone surrogates made undecodable (older writers) is read with them replaced;
-- one that still cannot be read refuses its key alone, never the store.
local function decode(json)
  local ok, value = pcall(cjson.decode, json)
  if not ok then
    ok, value = pcall(cjson.decode, (string.gsub(json, '\\\\u[dD][89a-fA-F]%x%x', '\\\\ufffd')))
  end
  if not ok or type(value) ~= 'table' then return nil end
  local function number(x) return x == nil or type(x) == 'number' end
  local limits = value.limits
  if limits ~= nil and (type(limits) ~= 'table' or not (number(limits.rpm) and number(limits.tpm)
    and number(limits.concurrency) and number(limits.queueTimeoutMs))) then return nil end
  if value.models ~= nil and type(value.models) ~= 'table' then return nil end
  if value.budgets ~= nil then
    if type(value.budgets) ~= 'table' then return nil end
    for _, budget in ipairs(value.budgets) do
      if type(budget) ~= 'table' or type(budget.usd) ~= 'number' or budget.usd ~= budget.usd then return nil end
      if budget.window ~= 'day' and budget.window ~= 'week' and budget.window ~= 'month' and budget.window ~= 'total' then return nil end
    end
  end
  if not number(value.expiresAtMs) then return nil end
  return value
end

local keyJson = redis.call('HGET', KEYS[1], 'config')
if not keyJson then return { 'invalid_key' } end
local validUntil = redis.call('HGET', KEYS[1], 'd:' .. digest)
if not validUntil then return { 'invalid_key' } end
validUntil = tonumber(validUntil)
if validUntil > 0 and now >= validUntil then return { 'invalid_key' } end
local key = decode(keyJson)
if not key then return { 'invalid_key_record', '', 'key' } end
if key.expiresAtMs and now >= key.expiresAtMs then return { 'invalid_key' } end

local WINDOWS = { 'day', 'week', 'month', 'total' }
local function scopeOf(name, policy, first)
  return { name = name, policy = policy, lease = KEYS[first + 1], minute = KEYS[first + 2],
    ctr = { day = KEYS[first + 3], week = KEYS[first + 4], month = KEYS[first + 5], total = KEYS[first + 6] } }
end
local scopes = { scopeOf('key', key, 1) }
if scopeKeys > 7 then
  local teamJson = redis.call('HGET', KEYS[8], 'config')
  if not teamJson then return { 'invalid_key' } end
  local team = decode(teamJson)
  if not team then return { 'invalid_key_record', '', 'team' } end
  scopes[2] = scopeOf('team', team, 8)
end

local function allows(models)
  if type(models) ~= 'table' or #models == 0 then return true end
  for _, pattern in ipairs(models) do
    if pattern == model then return true end
    if type(pattern) == 'string' and string.sub(pattern, -1) == '*' and model ~= '' and string.sub(model, 1, #pattern - 1) == string.sub(pattern, 1, -2) then return true end
  end
  return false
end

-- ARGV[18] 'tool': an MCP tool call names no model, so the model allow-lists do not apply.
for _, scope in ipairs(scopes) do
  if ARGV[18] ~= 'tool' and not allows(scope.policy.models) then return { 'model_not_allowed', keyJson } end
end
if unpriced ~= '' then
  for _, scope in ipairs(scopes) do
    if type(scope.policy.budgets) == 'table' and #scope.policy.budgets > 0 then return { 'model_unpriced', keyJson, scope.name } end
  end
end
for _, scope in ipairs(scopes) do
  local limits = scope.policy.limits or {}
  if limits.rpm then
    local used = tonumber(redis.call('HGET', scope.minute, 'rpm') or '0')
    if used >= limits.rpm then return { 'rate_limited', keyJson, scope.name, 'rpm', toMinute } end
  end
  if limits.tpm then
    local used = tonumber(redis.call('HGET', scope.minute, 'tpm') or '0')
    if used > 0 and used + estTokens > limits.tpm then return { 'rate_limited', keyJson, scope.name, 'tpm', toMinute } end
  end
end
for _, scope in ipairs(scopes) do
  for _, budget in ipairs(scope.policy.budgets or {}) do
    local counters = redis.call('HMGET', scope.ctr[budget.window], 'spent', 'res')
    local used = tonumber(counters[1] or '0') + tonumber(counters[2] or '0')
    if used + estPico > budget.usd * 1e12 then
      return { 'budget_exceeded', keyJson, scope.name, budget.window, tostring(resets[budget.window] or '') }
    end
  end
end
for _, scope in ipairs(scopes) do
  local limits = scope.policy.limits or {}
  -- Live leases only: an expired one stays as the record its late settlement checks, uncounted.
  if limits.concurrency and redis.call('ZCOUNT', scope.lease, '(' .. now, '+inf') >= limits.concurrency then
    return { 'concurrency', keyJson, scope.name, tostring(limits.queueTimeoutMs or 30000) }
  end
end

for _, scope in ipairs(scopes) do
  redis.call('ZREMRANGEBYSCORE', scope.lease, '-inf', now - retention)
  redis.call('ZADD', scope.lease, leaseUntil, leaseId)
  redis.call('PEXPIREAT', scope.lease, leaseUntil + retention)
  redis.call('HINCRBY', scope.minute, 'rpm', 1)
  redis.call('HINCRBY', scope.minute, 'tpm', ARGV[4])
  redis.call('PEXPIRE', scope.minute, 120000)
  for index, window in ipairs(WINDOWS) do
    redis.call('HINCRBY', scope.ctr[window], 'res', ARGV[5])
    if expiries[index] then redis.call('PEXPIREAT', scope.ctr[window], expiries[index]) end
  end
end
-- The sweeper's record of the call, until its settlement removes it (see SETTLE_SCRIPT).
if callRecord ~= '' then
  if type(key.user) == 'string' then
    callRecord = string.sub(callRecord, 1, -2) .. ',"user":' .. cjson.encode(key.user) .. '}'
  end
  redis.call('HSET', calls, leaseId, callRecord)
  redis.call('ZADD', callsDue, leaseUntil, leaseId)
end
return { 'ok', keyJson }
`;

/**
 * KEYS, per scope: lease, minute, then the day, week, month and total counters the reservation
 * sits in; last, the tag's open calls, their expiries, and its usage outbox (records, due).
 * ARGV: lease id, reserved tokens, actual tokens, the reservation negated, actual pico-dollars,
 * day, week and month counter expiries (ms), the usage event's JSON ('' none), now (ms), and for
 * the sweep of a lost call the moment its lease must have expired before ('' for a settlement).
 *
 * Idempotent: the key's lease record is the guard. It exists from admission until the first
 * settlement removes it, so a settlement retried (its reply lost with the connection), replayed
 * from a spill file, or raced by the sweeper of a lost call is applied once; answers 1 when
 * applied, 0 when it was already. The usage event goes to the outbox in the same step: it exists
 * iff the settlement applied, and it is durable once the settlement is acknowledged. A sweep
 * checks the lease in the same step: one renewed since the sweeper read it (its process is back)
 * is left alone.
 */
export const SETTLE_SCRIPT = `${ARGUMENT_CHECK}${OUTBOX_PUSH_LUA}
local leaseId, event = ARGV[1], ARGV[9] or ''
local reserved, actual, negated, pico, now = int(2), int(3), int(4), int(5), int(10)
local expiries = { int(6), int(7), int(8) }
local sweepBefore = false
if (ARGV[11] or '') ~= '' then sweepBefore = int(11) end
local scopeKeys = #KEYS - 4
if not (reserved and actual and negated and pico and now and expiries[1] and expiries[2] and expiries[3])
  or sweepBefore == nil or leaseId == '' or scopeKeys < 6 or scopeKeys % 6 ~= 0 then
  return redis.error_reply('conduit governance: invalid settle arguments')
end
local calls, callsDue, outbox, outboxDue = KEYS[#KEYS - 3], KEYS[#KEYS - 2], KEYS[#KEYS - 1], KEYS[#KEYS]
if sweepBefore then
  local leaseUntil = redis.call('ZSCORE', KEYS[1], leaseId)
  if leaseUntil and tonumber(leaseUntil) >= sweepBefore then return 0 end
end
redis.call('HDEL', calls, leaseId)
redis.call('ZREM', callsDue, leaseId)
if redis.call('ZREM', KEYS[1], leaseId) == 0 then return 0 end
local tokenDelta = actual - reserved
for index = 1, scopeKeys, 6 do
  if index > 1 then redis.call('ZREM', KEYS[index], leaseId) end
  local minute = KEYS[index + 1]
  if tokenDelta ~= 0 and redis.call('EXISTS', minute) == 1 then
    redis.call('HINCRBY', minute, 'tpm', tokenDelta)
  end
  for window = 0, 3 do
    local counters = KEYS[index + 2 + window]
    redis.call('HINCRBY', counters, 'res', ARGV[4])
    if pico ~= 0 then redis.call('HINCRBY', counters, 'spent', ARGV[5]) end
    if window < 3 then redis.call('PEXPIREAT', counters, expiries[window + 1]) end
  end
end
if event ~= '' then outboxPush(outbox, outboxDue, leaseId, event, now) end
return 1
`;

/**
 * KEYS: the leases of the call's scopes, then the tag's open-call expiries. ARGV: lease id, new
 * expiry (ms), retention (ms). Extends a lease still held (and when the sweeper may take it).
 */
export const RENEW_SCRIPT = `${ARGUMENT_CHECK}
local expiry, retention = int(2), int(3)
if not expiry or not retention or #KEYS < 2 then return redis.error_reply('conduit governance: invalid renew arguments') end
for index = 1, #KEYS - 1 do
  local lease = KEYS[index]
  if redis.call('ZADD', lease, 'XX', 'GT', 'CH', expiry, ARGV[1]) == 1 then
    redis.call('PEXPIREAT', lease, expiry + retention, 'GT')
  end
end
redis.call('ZADD', KEYS[#KEYS], 'XX', 'GT', expiry, ARGV[1])
return 1
`;
