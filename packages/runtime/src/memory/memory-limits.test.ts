import { randomUUID } from "node:crypto";
import { type SessionMessage, silentLogger } from "@conduit-ai/server-core";
import { FAIL_FAST_REDIS_OPTIONS, slotPrefix } from "@conduit-ai/server-core/internal";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";
import { InMemoryConversationStore } from "./in-memory-store.js";
import { DEFAULT_MEMORY_LIMITS, resolveMemoryLimits } from "./memory-limits.js";
import { RedisConversationStore } from "./redis-store.js";

const message = (content: string, role: SessionMessage["role"] = "user"): SessionMessage => ({
  role,
  content,
  timestamp: new Date().toISOString(),
});

describe("in-memory conversation store bounds", () => {
  it("keeps at most maxSessions, evicting the least recently written", async () => {
    const store = new InMemoryConversationStore({ maxSessions: 3 });
    for (const id of ["a", "b", "c"]) await store.append(id, [message(id)]);
    await store.append("a", [message("again")]); // a is now the most recent write
    await store.append("d", [message("d")]);
    expect(store.size).toBe(3);
    expect(await store.getSession("b")).toBeUndefined();
    expect((await store.listSessions()).map((session) => session.id)).toEqual(["d", "a", "c"]);
    expect(await store.history("a")).toHaveLength(2);
  });

  it("keeps the last maxMessagesPerSession messages of a session", async () => {
    const store = new InMemoryConversationStore({ maxMessagesPerSession: 4 });
    for (let index = 0; index < 10; index++) await store.append("s", [message(`m${index}`)]);
    expect((await store.history("s")).map((item) => item.content)).toEqual(["m6", "m7", "m8", "m9"]);
    expect(await store.getSession("s")).toMatchObject({ messageCount: 4 });
  });

  it("forgets a session ttlMs after its last write; a write refreshes it", async () => {
    let now = 1_000_000;
    const store = new InMemoryConversationStore({ ttlMs: 1_000, now: () => now });
    await store.append("old", [message("1")]);
    await store.append("kept", [message("1")]);
    now += 800;
    await store.append("kept", [message("2")]);
    now += 400;
    expect(await store.getSession("old")).toBeUndefined();
    expect(await store.history("old")).toEqual([]);
    expect(await store.getSession("kept")).toMatchObject({ messageCount: 2 });
    expect((await store.listSessions()).map((session) => session.id)).toEqual(["kept"]);
    expect(store.size).toBe(1);
  });

  it("stays under maxBytes of content, evicting the oldest sessions first", async () => {
    const store = new InMemoryConversationStore({ maxBytes: 10_000 });
    const big = "x".repeat(1_000); // ≈ 2 KB each
    for (let index = 0; index < 20; index++) await store.append(`s${index}`, [message(big)]);
    expect(store.bytes).toBeLessThanOrEqual(10_000);
    expect(await store.getSession("s19")).toBeDefined();
    expect(await store.getSession("s0")).toBeUndefined();
    await store.deleteSession("s19");
    await store.clearSession("s18");
    expect(store.bytes).toBeLessThanOrEqual(10_000 - 2 * 2_000);
  });

  it("refuses limits that are not positive numbers", () => {
    expect(() => resolveMemoryLimits({ maxSessions: 0 })).toThrow(/maxSessions/);
    expect(resolveMemoryLimits({ maxSessions: Number.POSITIVE_INFINITY }).maxSessions).toBe(Number.POSITIVE_INFINITY);
    expect(resolveMemoryLimits()).toEqual(DEFAULT_MEMORY_LIMITS);
  });

  it("20 000 requests with new sessionIds keep at most the default maxSessions", async () => {
    const runtime = createRuntime({ env: {}, logger: silentLogger });
    const store = runtime.memory as InMemoryConversationStore;
    for (let index = 0; index < 20_000; index++)
      await runtime.generate({ input: { text: `hello ${index}` }, sessionId: `session-${index}` });
    expect(store.size).toBe(DEFAULT_MEMORY_LIMITS.maxSessions);
    expect(await store.getSession("session-19999")).toMatchObject({ messageCount: 2 });
    expect(await store.getSession("session-0")).toBeUndefined();
    await runtime.close();
  });
});

describe("redis conversation store bounds (real Redis)", () => {
  const prefix = `test:${randomUUID()}:`;
  // The store's keys sit under one hash tag made of its prefix (one Redis Cluster slot).
  const keys = slotPrefix(prefix);
  const client = new Redis("redis://127.0.0.1:6379", { ...FAIL_FAST_REDIS_OPTIONS });
  afterAll(async () => {
    const found = await client.keys(`{${prefix.slice(0, -1)}*`);
    if (found.length > 0) await client.del(...found);
    await client.quit();
  });

  it("gives a session's keys a TTL refreshed on every write, and trims its list", async () => {
    const store = new RedisConversationStore(client, { keyPrefix: prefix, ttlMs: 60_000, maxMessagesPerSession: 3 });
    for (let index = 0; index < 5; index++) await store.append("s", [message(`m${index}`)]);
    expect((await store.history("s")).map((item) => item.content)).toEqual(["m2", "m3", "m4"]);
    for (const key of [`${keys}session:s`, `${keys}messages:s`, `${keys}sessions`]) {
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    await client.pexpire(`${keys}session:s`, 5_000);
    await store.append("s", [message("m5")]);
    expect(await client.pttl(`${keys}session:s`)).toBeGreaterThan(50_000);
  });

  it("an expired session is gone from reads and from the listing", async () => {
    const store = new RedisConversationStore(client, { keyPrefix: `${prefix}short:`, ttlMs: 150 });
    await store.append("gone", [message("1")]);
    expect((await store.listSessions()).map((session) => session.id)).toEqual(["gone"]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await store.append("fresh", [message("1")]);
    expect(await store.getSession("gone")).toBeUndefined();
    expect((await store.listSessions()).map((session) => session.id)).toEqual(["fresh"]);
    expect(await client.zscore(`${slotPrefix(`${prefix}short:`)}sessions`, "gone")).toBeNull();
  });

  it("answers STORE_UNAVAILABLE at once while Redis cannot be reached", async () => {
    const down = new Redis("redis://127.0.0.1:1", { ...FAIL_FAST_REDIS_OPTIONS, retryStrategy: () => 50 });
    down.on("error", () => undefined);
    const store = new RedisConversationStore(down, { keyPrefix: prefix });
    for (const call of [() => store.listSessions(), () => store.append("s", [message("x")]), () => store.ping()]) {
      await expect(call()).rejects.toMatchObject({ code: "STORE_UNAVAILABLE", statusCode: 503, retryable: true });
    }
    down.disconnect();
  });
});
