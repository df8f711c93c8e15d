import type { OutputItem } from "../../wire/openai-responses/response-object.js";
import type { InputItem } from "../../wire/openai-responses/responses-request-schema.js";
import { BoundedCache } from "@conduit-ai/server-core/internal";

/**
 * Where stored responses live, for `previous_response_id`: the whole conversation up to and
 * including a response, as input items, kept for a TTL. Memory by default (this process);
 * Redis so every process sharing it can continue any conversation.
 */
export interface ResponseStore {
  load(id: string): Promise<InputItem[] | undefined>;
  save(id: string, items: InputItem[]): Promise<void>;
}

/** What a Redis client needs here (ioredis `Redis` or `Cluster`; the pool store's client). */
export interface ResponseStoreRedis {
  eval(script: string, numberOfKeys: number, ...args: Array<string | number>): Promise<unknown>;
}

const GET = "return redis.call('GET', KEYS[1])";
const SET_PX = "return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])";

const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;
const DEFAULT_MAX_ENTRIES = 10_000;

/** Responses kept in this process (server-core's one bounded cache): least recently used first out past `maxEntries`. */
export class MemoryResponseStore implements ResponseStore {
  private readonly entries: BoundedCache<InputItem[]>;

  constructor(ttlMs = DEFAULT_TTL_MS, maxEntries = DEFAULT_MAX_ENTRIES) {
    this.entries = new BoundedCache({ maxEntries, ttlMs });
  }

  async load(id: string): Promise<InputItem[] | undefined> {
    return this.entries.get(id);
  }

  async save(id: string, items: InputItem[]): Promise<void> {
    this.entries.set(id, items);
  }
}

/** Responses in Redis under `<prefix>response:<id>`, one JSON value each, expiring after the TTL. */
export class RedisResponseStore implements ResponseStore {
  constructor(
    private readonly redis: ResponseStoreRedis,
    private readonly prefix = "conduit:proxy:",
    private readonly ttlMs = DEFAULT_TTL_MS,
  ) {}

  async load(id: string): Promise<InputItem[] | undefined> {
    const text = await this.redis.eval(GET, 1, `${this.prefix}response:${id}`);
    return typeof text === "string" ? (JSON.parse(text) as InputItem[]) : undefined;
  }

  async save(id: string, items: InputItem[]): Promise<void> {
    await this.redis.eval(SET_PX, 1, `${this.prefix}response:${id}`, JSON.stringify(items), this.ttlMs);
  }
}

/** Output items as the input items a later turn sends back. */
export function asInputItems(output: readonly OutputItem[]): InputItem[] {
  const items: InputItem[] = [];
  for (const item of output) {
    if (item.type === "message")
      items.push({ role: "assistant", content: item.content.map((part) => ({ type: "output_text" as const, text: part.text })) });
    else if (item.type === "function_call")
      items.push({
        type: "function_call",
        call_id: item.call_id,
        name: item.name,
        ...(item.namespace ? { namespace: item.namespace } : {}),
        arguments: item.arguments,
      });
    else if (item.type === "custom_tool_call")
      items.push({ type: "custom_tool_call", call_id: item.call_id, name: item.name, input: item.input });
    else if (item.type === "reasoning" && item.encrypted_content)
      items.push({ type: "reasoning", encrypted_content: item.encrypted_content, summary: [] });
  }
  return items;
}
