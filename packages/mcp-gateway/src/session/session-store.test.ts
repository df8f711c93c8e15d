import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { RedisSessionStore } from "./redis-session-store.js";
import { MemorySessionStore, type McpSessionStore } from "./session-store.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const prefix = `test:mcp-sessions:${randomBytes(4).toString("hex")}:`;
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const STORES: Array<[string, () => McpSessionStore]> = [
  ["memory", () => new MemorySessionStore()],
  ["redis", () => new RedisSessionStore(redis, prefix)],
];
const core = (id: string) => ({ id, principal: "key:k1", protocolVersion: "2025-11-25", createdAt: Date.now() });

describe.each(STORES)("MCP session store [%s]", (_name, makeStore) => {
  it("keeps a session's upstream sessions, subscriptions and log level, written field by field", async () => {
    const store = makeStore();
    const id = randomBytes(8).toString("hex");
    const fixed = core(id);
    await store.create(fixed, 60_000);
    await Promise.all([
      store.setUpstream(id, "files", { sessionId: "u-1", protocolVersion: "2025-06-18" }),
      store.setUpstream(id, "github", { sessionId: "u-2" }),
      store.setSubscription(id, "files__file:///a", true),
      store.setSubscription(id, "files__file:///b", true),
      store.setLogLevel(id, "debug"),
    ]);
    await store.setSubscription(id, "files__file:///a", false);
    const record = await store.touch(id, 60_000);
    expect(record).toMatchObject({
      ...fixed,
      logLevel: "debug",
      upstream: { files: { sessionId: "u-1", protocolVersion: "2025-06-18" }, github: { sessionId: "u-2" } },
      subscriptions: ["files__file:///b"],
    });
  });

  it("a deleted or expired session is gone, and a late write never brings it back", async () => {
    const store = makeStore();
    const id = randomBytes(8).toString("hex");
    await store.create(core(id), 60_000);
    expect(await store.delete(id)).toBe(true);
    await store.setUpstream(id, "files", { sessionId: "late" });
    await store.setSubscription(id, "files__x", true);
    expect(await store.touch(id, 60_000)).toBeUndefined();
    expect(await store.delete(id)).toBe(false);
    const short = randomBytes(8).toString("hex");
    await store.create(core(short), 50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await store.touch(short, 60_000)).toBeUndefined();
  });

  it("touch pushes the idle expiry back", async () => {
    const store = makeStore();
    const id = randomBytes(8).toString("hex");
    // Wide margins: a loaded machine delays timers by hundreds of milliseconds.
    await store.create(core(id), 1_500);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await store.touch(id, 5_000)).toBeDefined();
    // Past the first expiry: only the touch kept it.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await store.touch(id, 5_000)).toBeDefined();
  });
});
