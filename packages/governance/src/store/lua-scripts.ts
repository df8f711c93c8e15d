/**
 * The two scripts of the Redis store: everything a call needs on the way in (authentication,
 * status, team, model allow-list, rpm/tpm, budgets, concurrency lease, reservation) in one, the
 * settlement in the other. Every key either touches shares one hash tag (the team's, or the key's
 * when it has none), so each script runs in one slot of a cluster.
 *
 * KEYS: key record, key counters, key leases, key minute [, team record, team counters, team leases, team minute]
 */
export const ADMIT_SCRIPT = `
local digest, now, model = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local estTokens, estPico = tonumber(ARGV[4]), tonumber(ARGV[5])
local ids = { day = ARGV[6], week = ARGV[7], month = ARGV[8], total = 'total' }
local resets = { day = ARGV[9], week = ARGV[10], month = ARGV[11], total = '' }
local toMinute, leaseId, leaseUntil = ARGV[12], ARGV[13], tonumber(ARGV[14])

local keyJson = redis.call('HGET', KEYS[1], 'config')
if not keyJson then return { 'invalid_key' } end
local validUntil = redis.call('HGET', KEYS[1], 'd:' .. digest)
if not validUntil then return { 'invalid_key' } end
validUntil = tonumber(validUntil)
if validUntil > 0 and now >= validUntil then return { 'invalid_key' } end
local key = cjson.decode(keyJson)
if key.expiresAtMs and now >= key.expiresAtMs then return { 'invalid_key' } end

local scopes = { { name = 'key', policy = key, ctr = KEYS[2], lease = KEYS[3], minute = KEYS[4] } }
if #KEYS > 4 then
  local teamJson = redis.call('HGET', KEYS[5], 'config')
  if not teamJson then return { 'invalid_key' } end
  scopes[2] = { name = 'team', policy = cjson.decode(teamJson), ctr = KEYS[6], lease = KEYS[7], minute = KEYS[8] }
end

local function allows(models)
  if type(models) ~= 'table' or #models == 0 then return true end
  for _, pattern in ipairs(models) do
    if pattern == model then return true end
    if string.sub(pattern, -1) == '*' and model ~= '' and string.sub(model, 1, #pattern - 1) == string.sub(pattern, 1, -2) then return true end
  end
  return false
end

-- ARGV[15] 'tool': an MCP tool call names no model, so the model allow-lists do not apply.
for _, scope in ipairs(scopes) do
  if ARGV[15] ~= 'tool' and not allows(scope.policy.models) then return { 'model_not_allowed', keyJson } end
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
    local id = ids[budget.window]
    local spent = tonumber(redis.call('HGET', scope.ctr, 'spent:' .. id) or '0')
    local reserved = tonumber(redis.call('HGET', scope.ctr, 'res:' .. id) or '0')
    if spent + reserved + estPico > budget.usd * 1e12 then
      return { 'budget_exceeded', keyJson, scope.name, budget.window, resets[budget.window] }
    end
  end
end
for _, scope in ipairs(scopes) do
  local limits = scope.policy.limits or {}
  if limits.concurrency then
    redis.call('ZREMRANGEBYSCORE', scope.lease, '-inf', now)
    if redis.call('ZCARD', scope.lease) >= limits.concurrency then
      return { 'concurrency', keyJson, scope.name, tostring(limits.queueTimeoutMs or 30000) }
    end
  end
end

for _, scope in ipairs(scopes) do
  redis.call('ZADD', scope.lease, leaseUntil, leaseId)
  redis.call('PEXPIREAT', scope.lease, leaseUntil)
  redis.call('HINCRBY', scope.minute, 'rpm', 1)
  redis.call('HINCRBY', scope.minute, 'tpm', estTokens)
  redis.call('PEXPIRE', scope.minute, 120000)
  for _, id in pairs(ids) do redis.call('HINCRBY', scope.ctr, 'res:' .. id, ARGV[5]) end
end
return { 'ok', keyJson }
`;

/** KEYS: key counters, key leases, key minute [, team counters, team leases, team minute]; ARGV[4] is the reservation negated. */
export const SETTLE_SCRIPT = `
local leaseId = ARGV[1]
local tokenDelta = tonumber(ARGV[3]) - tonumber(ARGV[2])
local ids = { ARGV[6], ARGV[7], ARGV[8], 'total' }
for index = 1, #KEYS, 3 do
  local ctr, lease, minute = KEYS[index], KEYS[index + 1], KEYS[index + 2]
  redis.call('ZREM', lease, leaseId)
  if tokenDelta ~= 0 then
    redis.call('HINCRBY', minute, 'tpm', tokenDelta)
    redis.call('PEXPIRE', minute, 120000)
  end
  for _, id in ipairs(ids) do
    redis.call('HINCRBY', ctr, 'res:' .. id, ARGV[4])
    if ARGV[5] ~= '0' then redis.call('HINCRBY', ctr, 'spent:' .. id, ARGV[5]) end
  end
end
return 1
`;
