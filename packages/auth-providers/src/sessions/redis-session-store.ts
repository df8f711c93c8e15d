import { storeCall } from "@conduit-ai/server-core";
import { type RedisTopology, createRedisClient, redisTopologyFrom } from "@conduit-ai/server-core/middleware";
import { type PingableRedis, type RedisConnectionState, pingRedis, slotPrefix, whenConnected } from "@conduit-ai/server-core/internal";
import type { AuthSession } from "../types.js";
import { type SessionStore, parseStoredSession } from "./session-store.js";

/** The part of an ioredis client the store uses (an ioredis `Redis` fits as is). */
export interface SessionRedisClient extends RedisConnectionState {
  eval(script: string, numberOfKeys: number, ...args: Array<string | number>): Promise<unknown>;
  get(key: string): Promise<string | null>;
  ping(): Promise<unknown>;
  quit(): Promise<unknown>;
}

/*
 * Layout, every key under one hash tag made of the prefix (`{conduit:auth}:…`, see
 * `slotPrefix`), so each script (which also reads session keys named in the user's index) runs
 * in one Redis Cluster slot: `<prefix>s:<id>` holds the session JSON with a PX expiry at its `expiresAt`;
 * `<prefix>r:<id>` marks a signed-out session until the credential bound to it expires;
 * `<prefix>u:<userId>` is a sorted set of the user's session ids scored by `createdAt`,
 * expiring with the user's last session. Every change touching both is one Lua script, so
 * another process never sees a session without its index entry or an eviction half done.
 * Index members whose session key has expired are pruned by the scripts as they pass.
 */
const SAVE_SCRIPT = `
local ttl = tonumber(ARGV[3])
if ttl <= 0 then return {} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
local members = redis.call('ZRANGE', KEYS[2], 0, -1)
local alive = {}
for _, member in ipairs(members) do
  if redis.call('EXISTS', ARGV[6] .. member) == 1 then
    table.insert(alive, member)
  else
    redis.call('ZREM', KEYS[2], member)
  end
end
local evicted = {}
local max = tonumber(ARGV[5])
if max > 0 then
  local excess = #alive - max
  for _, member in ipairs(alive) do
    if excess <= 0 then break end
    if member ~= ARGV[1] then
      redis.call('DEL', ARGV[6] .. member)
      redis.call('ZREM', KEYS[2], member)
      table.insert(evicted, member)
      excess = excess - 1
    end
  end
end
return evicted
`;

const DELETE_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
redis.call('DEL', KEYS[1])
local ok, session = pcall(cjson.decode, raw)
if ok and type(session) == 'table' and type(session.userId) == 'string' then
  redis.call('ZREM', ARGV[1] .. session.userId, ARGV[2])
end
return 1
`;

const LIST_SCRIPT = `
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local result = {}
for _, member in ipairs(members) do
  local raw = redis.call('GET', ARGV[1] .. member)
  if raw then table.insert(result, raw) else redis.call('ZREM', KEYS[1], member) end
end
return result
`;

const DELETE_USER_SCRIPT = `
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local count = 0
for _, member in ipairs(members) do
  count = count + redis.call('DEL', ARGV[1] .. member)
end
redis.call('DEL', KEYS[1])
return count
`;

export interface RedisSessionStoreOptions {
  /** Default `conduit:auth:`. Give each deployment (and each test) its own. */
  keyPrefix?: string;
}

/**
 * Sessions in Redis, shared by every process on the same Redis: TTL'd session keys plus a
 * per-user index, changed atomically by Lua scripts. While Redis is unreachable every call
 * fails at once with server-core's `StoreUnavailableError` (503 `STORE_UNAVAILABLE`). `RedisSessionStore.connect(url)` builds
 * a client with server-core's Redis factory (one server, cluster or sentinel; `ioredis` loaded on
 * demand); or pass a client you own (it is not closed by `close()`).
 *
 * @example
 * const store = await RedisSessionStore.connect(process.env.REDIS_URL!, { keyPrefix: "myapp:auth:" });
 * const sessions = new SessionManager({ store, maxSessionsPerUser: 5 });
 */
export class RedisSessionStore implements SessionStore {
  readonly #prefix: string;
  readonly #owned: boolean;

  constructor(
    private readonly client: SessionRedisClient,
    options: RedisSessionStoreOptions & { ownsClient?: boolean } = {},
  ) {
    this.#prefix = slotPrefix(options.keyPrefix ?? "conduit:auth:");
    this.#owned = options.ownsClient ?? false;
  }

  /**
   * Connects with server-core's Redis factory (fail fast, automatic recovery) to a URL or any
   * topology (`redisTopologyFrom(process.env)` for a cluster or sentinels); raises
   * `MissingDependencyError` when ioredis is not installed.
   *
   * @example
   * const store = await RedisSessionStore.connect("redis://127.0.0.1:6379");
   */
  static async connect(where: string | RedisTopology, options: RedisSessionStoreOptions = {}): Promise<RedisSessionStore> {
    const topology = typeof where === "string" ? redisTopologyFrom({ REDIS_URL: where }) : where;
    if (topology === undefined) throw new TypeError("RedisSessionStore.connect: a Redis URL or topology is required");
    const client = createRedisClient<SessionRedisClient>(topology, {
      feature: "Redis sessions (auth.sessions.store)",
      from: import.meta.url,
    });
    return new RedisSessionStore(client, { ...options, ownsClient: true });
  }

  #sessionKey(id: string): string {
    return `${this.#prefix}s:${id}`;
  }

  #userKey(userId: string): string {
    return `${this.#prefix}u:${userId}`;
  }

  /** One command, failing fast with `STORE_UNAVAILABLE` while Redis is down. */
  async #call<T>(operation: () => Promise<T>): Promise<T> {
    return storeCall("sessions", async () => {
      await whenConnected(this.client, "sessions");
      return operation();
    });
  }

  async get(sessionId: string): Promise<AuthSession | undefined> {
    const session = parseStoredSession(await this.#call(() => this.client.get(this.#sessionKey(sessionId))));
    return session && session.expiresAt > Date.now() ? session : undefined;
  }

  async save(session: AuthSession, maxSessionsPerUser: number): Promise<string[]> {
    const ttl = Math.ceil(session.expiresAt - Date.now());
    const evicted = await this.#call(() =>
      this.client.eval(
        SAVE_SCRIPT,
        2,
        this.#sessionKey(session.id),
        this.#userKey(session.userId),
        session.id,
        JSON.stringify(session),
        ttl,
        session.createdAt,
        maxSessionsPerUser,
        `${this.#prefix}s:`,
      ),
    );
    return Array.isArray(evicted) ? evicted.map(String) : [];
  }

  async delete(sessionId: string): Promise<boolean> {
    return (await this.#call(() => this.client.eval(DELETE_SCRIPT, 1, this.#sessionKey(sessionId), `${this.#prefix}u:`, sessionId))) === 1;
  }

  async listByUser(userId: string): Promise<AuthSession[]> {
    const raw = await this.#call(() => this.client.eval(LIST_SCRIPT, 1, this.#userKey(userId), `${this.#prefix}s:`));
    const now = Date.now();
    return (Array.isArray(raw) ? raw : [])
      .map((entry) => parseStoredSession(String(entry)))
      .filter((session): session is AuthSession => session !== undefined && session.expiresAt > now && session.userId === userId)
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  async deleteByUser(userId: string): Promise<number> {
    return Number(await this.#call(() => this.client.eval(DELETE_USER_SCRIPT, 1, this.#userKey(userId), `${this.#prefix}s:`)));
  }

  async revoke(sessionId: string, untilMs: number): Promise<void> {
    const ttl = Math.ceil(untilMs - Date.now());
    if (ttl > 0)
      await this.#call(() =>
        this.client.eval("return redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])", 1, `${this.#prefix}r:${sessionId}`, ttl),
      );
  }

  async isRevoked(sessionId: string): Promise<boolean> {
    return (await this.#call(() => this.client.get(`${this.#prefix}r:${sessionId}`))) !== null;
  }

  async ping(): Promise<void> {
    await this.#call(() => pingRedis(this.client as PingableRedis));
  }

  async close(): Promise<void> {
    if (this.#owned) await this.client.quit().catch(() => undefined);
  }
}
