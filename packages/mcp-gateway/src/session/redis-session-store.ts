import { storeCall } from "@conduit-ai/server-core";
import { type RedisEvalClient, whenConnected } from "@conduit-ai/server-core/internal";
import type { McpSessionCore, McpSessionRecord, McpSessionStore, UpstreamSessionState } from "./session-store.js";

// One hash per session: `core` (fixed at initialize), `level`, `u:<server>` (an upstream's session)
// and `s:<uri>` (a subscription). Each write is one field, so two processes updating two servers of
// one session never overwrite each other; each script touches that one key, so no hash tag is
// needed and sessions spread over every primary of a cluster (see server-core's hash-tag.ts).
const CREATE = "redis.call('HSET', KEYS[1], 'core', ARGV[1]) redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1";
const TOUCH = "local fields = redis.call('HGETALL', KEYS[1]) if #fields > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return fields";
// A late write to a session deleted or expired meanwhile must not bring it back (without `core`).
const SET_FIELD = "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return 1";
const DELETE_FIELD = "return redis.call('HDEL', KEYS[1], ARGV[1])";
const DELETE = "return redis.call('DEL', KEYS[1])";

/**
 * Sessions in Redis (`ioredis`, one server, Sentinel or Cluster — the server's one client), so a
 * session started on one process continues on any other: one round trip per request (read and
 * refresh the idle expiry together). While Redis is unreachable every call throws
 * `StoreUnavailableError` (the gateway answers 503 with Retry-After).
 *
 * @example
 * const store = new RedisSessionStore(redis, "conduit:mcp:session:");
 */
export class RedisSessionStore implements McpSessionStore {
  readonly kind = "redis" as const;

  constructor(
    private readonly client: RedisEvalClient,
    private readonly prefix = "conduit:mcp:session:",
  ) {}

  #run(script: string, id: string, ...args: Array<string | number>): Promise<unknown> {
    const connecting = whenConnected(this.client, "mcp sessions");
    if (connecting) return connecting.then(() => this.#run(script, id, ...args));
    return storeCall("mcp sessions", () => this.client.eval(script, 1, this.prefix + id, ...args));
  }

  async create(core: McpSessionCore, ttlMs: number): Promise<void> {
    await this.#run(CREATE, core.id, JSON.stringify(core), Math.max(1, Math.ceil(ttlMs)));
  }

  async touch(id: string, ttlMs: number): Promise<McpSessionRecord | undefined> {
    const fields = (await this.#run(TOUCH, id, Math.max(1, Math.ceil(ttlMs)))) as string[];
    if (!Array.isArray(fields) || fields.length === 0) return undefined;
    let core: McpSessionCore | undefined;
    const record = { upstream: {} as Record<string, UpstreamSessionState>, subscriptions: [] as string[] } as McpSessionRecord;
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const field = fields[index] as string;
      const value = fields[index + 1] as string;
      if (field === "core") core = JSON.parse(value) as McpSessionCore;
      else if (field === "level") record.logLevel = value;
      else if (field.startsWith("u:")) record.upstream[field.slice(2)] = JSON.parse(value) as UpstreamSessionState;
      else if (field.startsWith("s:")) record.subscriptions.push(field.slice(2));
    }
    return core ? { ...record, ...core } : undefined;
  }

  async setUpstream(id: string, server: string, state: UpstreamSessionState): Promise<void> {
    await this.#run(SET_FIELD, id, `u:${server}`, JSON.stringify(state));
  }

  async setSubscription(id: string, uri: string, subscribed: boolean): Promise<void> {
    if (subscribed) await this.#run(SET_FIELD, id, `s:${uri}`, "1");
    else await this.#run(DELETE_FIELD, id, `s:${uri}`);
  }

  async setLogLevel(id: string, level: string): Promise<void> {
    await this.#run(SET_FIELD, id, "level", level);
  }

  async delete(id: string): Promise<boolean> {
    return Number(await this.#run(DELETE, id)) > 0;
  }
}
