import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { AuthSession } from "../types.js";
import { MemorySessionStore } from "./memory-session-store.js";
import { RedisSessionStore } from "./redis-session-store.js";
import { SessionManager, boundSessionId } from "./session-manager.js";
import type { SessionStore } from "./session-store.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const user = (id: string) => ({
  id,
  roles: ["viewer"],
  permissions: [],
  metadata: { claims: { sub: id, secret: "not stored" }, tenant: "t1" },
});
const stores: SessionStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close?.();
});

const factories: Array<[string, () => Promise<SessionStore>]> = [
  ["memory", async () => new MemorySessionStore()],
  ["redis", async () => RedisSessionStore.connect(REDIS_URL, { keyPrefix: `test:auth:${randomBytes(6).toString("hex")}:` })],
];

describe.each(factories)("session manager on the %s store", (_name, makeStore) => {
  let store: SessionStore;
  beforeEach(async () => {
    store = await makeStore();
    stores.push(store);
  });
  afterAll(() => vi.useRealTimers());

  it("creates, finds, lists and destroys sessions; claims are not stored", async () => {
    const manager = new SessionManager({ store, provider: "jwt" });
    const session = await manager.create(user("alice"));
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const found = await manager.get(session.id);
    expect(found).toMatchObject({ id: session.id, userId: "alice", provider: "jwt", user: { id: "alice", metadata: { tenant: "t1" } } });
    expect(JSON.stringify(found)).not.toContain("not stored");
    expect((await manager.getUserSessions("alice")).map((entry) => entry.id)).toEqual([session.id]);
    expect(await manager.destroy(session.id)).toBe(true);
    expect(await manager.get(session.id)).toBeUndefined();
    expect(await manager.getUserSessions("alice")).toEqual([]);
    expect(await manager.destroy(session.id)).toBe(false);
  });

  it("evicts the oldest session beyond maxSessionsPerUser, and only that user's", async () => {
    const manager = new SessionManager({ store, maxSessionsPerUser: 2 });
    const other = await manager.create(user("bob"));
    const first = await manager.create(user("carol"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await manager.create(user("carol"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const third = await manager.create(user("carol"));
    const ids = (await manager.getUserSessions("carol")).map((session) => session.id);
    expect(ids).toEqual([second.id, third.id]);
    expect(await manager.get(first.id)).toBeUndefined();
    expect(await manager.get(other.id)).toBeDefined();
  });

  it("reuses the session bound to a credential and refreshes it near its end (refreshThreshold)", async () => {
    const manager = new SessionManager({ store, ttlMs: 10_000, refreshThresholdMs: 4_000, touchIntervalMs: 60_000 });
    const first = await manager.resolve(user("dave"), "sid:abc");
    const again = await manager.resolve(user("dave"), "sid:abc");
    expect(again.id).toBe(first.id);
    expect(again.expiresAt).toBe(first.expiresAt); // not near its end: no write
    // Age the stored session so only 3 s are left: the next use extends it to a full ttl.
    await store.save({ ...first, expiresAt: Date.now() + 3_000 }, 0);
    const refreshed = await manager.resolve(user("dave"), "sid:abc");
    expect(refreshed.id).toBe(first.id);
    expect(refreshed.expiresAt).toBeGreaterThan(Date.now() + 9_000);
    expect((await manager.get(first.id))?.expiresAt).toBe(refreshed.expiresAt);
    expect(first.id).toBe(boundSessionId("custom", "dave", "sid:abc"));
  });

  it("keeps a signed-out credential out until its revocation ends; destroys all of a user's sessions", async () => {
    const manager = new SessionManager({ store });
    const session = await manager.resolve(user("erin"), "token:xyz");
    await manager.create(user("erin"));
    expect(await manager.destroyUserSession("mallory", session.id)).toBe(false); // not hers
    expect(await manager.destroyUserSession("erin", session.id)).toBe(true);
    await expect(manager.resolve(user("erin"), "token:xyz")).rejects.toMatchObject({ code: "SESSION_EXPIRED", statusCode: 401 });
    expect(await manager.destroyAllUserSessions("erin")).toBe(1);
    expect(await manager.getUserSessions("erin")).toEqual([]);
  });

  it("never returns an expired session", async () => {
    const manager = new SessionManager({ store, ttlMs: 1_000 });
    const session = await manager.create(user("frank"));
    await store.save({ ...session, expiresAt: Date.now() + 50 } satisfies AuthSession, 0);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await manager.get(session.id)).toBeUndefined();
    expect(await manager.getUserSessions("frank")).toEqual([]);
  });
});

describe("redis sessions while Redis is unreachable", () => {
  it("fail fast with 503 STORE_UNAVAILABLE naming the sessions store, never hanging", async () => {
    const { createServer } = await import("node:net");
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const store = await RedisSessionStore.connect(`redis://127.0.0.1:${port}`, { keyPrefix: "test:down:" });
    stores.push(store);
    const manager = new SessionManager({ store });
    await expect(manager.get("any")).rejects.toMatchObject({ code: "STORE_UNAVAILABLE", statusCode: 503, details: { store: "sessions" } });
    await expect(manager.create({ id: "u", roles: [], permissions: [] })).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
  });
});

describe("redis sessions shared by two processes", () => {
  const child = fileURLToPath(new URL("../testing/session-child.ts", import.meta.url));
  const run = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--conditions=@conduit-ai/source", "--import", "tsx", child, REDIS_URL, ...args],
      { timeout: 30_000 },
    );
    return JSON.parse(stdout) as unknown;
  };

  it("a session created in another process is seen here, and one destroyed here is gone there", async () => {
    const keyPrefix = `test:auth:${randomBytes(6).toString("hex")}:`;
    const store = await RedisSessionStore.connect(REDIS_URL, { keyPrefix });
    stores.push(store);
    const manager = new SessionManager({ store, maxSessionsPerUser: 3 });
    const created = (await run(keyPrefix, "create", "grace")) as AuthSession;
    expect(await manager.get(created.id)).toMatchObject({ id: created.id, userId: "grace", user: { roles: ["child"] } });
    const local = await manager.create(user("grace"));
    expect(new Set((await run(keyPrefix, "list", "grace")) as string[])).toEqual(new Set([created.id, local.id]));
    await manager.destroy(created.id);
    expect(await run(keyPrefix, "list", "grace")).toEqual([local.id]);
    // Three child processes, each paying the TypeScript loader's start-up: slow on a loaded machine.
  }, 90_000);
});
