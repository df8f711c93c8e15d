import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { ConversationStore } from "./conversation-store.js";
import { InMemoryConversationStore } from "./in-memory-store.js";
import { RedisConversationStore } from "./redis-store.js";

const prefix = `test:${randomUUID()}:`;
const clients: Redis[] = [];
function redisStore(): RedisConversationStore {
  const client = new Redis("redis://127.0.0.1:6379", { maxRetriesPerRequest: 1 });
  clients.push(client);
  return new RedisConversationStore(client, { keyPrefix: prefix });
}

afterAll(async () => {
  const cleaner = clients[0];
  if (cleaner) {
    const keys = await cleaner.keys(`{${prefix.slice(0, -1)}}*`);
    if (keys.length > 0) await cleaner.del(...keys);
  }
  await Promise.all(clients.map((client) => client.quit()));
});

const message = (role: "user" | "assistant", content: string) => ({ role, content, timestamp: new Date().toISOString() });

describe.each([
  ["in-memory", () => new InMemoryConversationStore() as ConversationStore],
  ["redis", () => redisStore() as ConversationStore],
])("%s conversation store", (_name, create) => {
  it("appends, lists, pages, clears and deletes sessions", async () => {
    const store = create();
    const id = `s-${randomUUID()}`;
    expect(await store.getSession(id)).toBeUndefined();
    expect(await store.getMessages(id)).toBeUndefined();
    await store.append(id, [message("user", "one"), message("assistant", "two")]);
    await store.append(id, [message("user", "three")]);

    expect(await store.getSession(id)).toMatchObject({ id, messageCount: 3 });
    expect((await store.listSessions()).map((session) => session.id)).toContain(id);
    const page = await store.getMessages(id, { limit: 2, offset: 1 });
    expect(page).toMatchObject({ sessionId: id, total: 3, limit: 2, offset: 1 });
    expect(page?.messages.map((item) => item.content)).toEqual(["two", "three"]);
    expect((await store.history(id, 2)).map((item) => item.content)).toEqual(["two", "three"]);

    expect(await store.clearSession(id)).toBe(true);
    expect(await store.getSession(id)).toMatchObject({ messageCount: 0 });
    expect(await store.deleteSession(id)).toBe(true);
    expect(await store.deleteSession(id)).toBe(false);
    expect(await store.clearSession(id)).toBe(false);
    expect((await store.listSessions()).map((session) => session.id)).not.toContain(id);
  });
});

describe("redis conversation store across restarts", () => {
  it("a new client on the same Redis sees earlier sessions", async () => {
    const id = `persist-${randomUUID()}`;
    const first = redisStore();
    await first.append(id, [message("user", "remember me")]);
    const second = redisStore();
    expect(await second.getSession(id)).toMatchObject({ messageCount: 1 });
    expect((await second.history(id))[0]?.content).toBe("remember me");
  });
});
