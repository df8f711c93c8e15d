import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createAdminCheck } from "@conduit-ai/governance";
import { adminCredentialCheck, credentialDigest } from "./admin-check.js";
import { crossSiteReason } from "./console-security.js";
import { ConsoleSessions } from "./console-sessions.js";
import { CONSOLE_COOKIE } from "./session-cookie.js";
import { type ConsoleSessionStore, MemoryConsoleSessionStore, RedisConsoleSessionStore, isSessionId, sessionKey } from "./session-store.js";

const KEY = "unit-admin-key-0123456789abcdefghijklmnop";
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { lazyConnect: true, maxRetriesPerRequest: 1 });
const prefix = `test:console:${randomUUID()}:`;
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/** Just enough of a request context for the session code. */
function context(headers: Record<string, string> = {}, method = "POST") {
  const set: Record<string, string> = {};
  return {
    method,
    header: (name: string) => headers[name],
    setHeader: (name: string, value: string) => {
      set[name] = value;
    },
    set,
  } as unknown as Parameters<ConsoleSessions["signIn"]>[0] & { set: Record<string, string> };
}

describe("adminCredentialCheck (governance's admin check, asked with the credential)", () => {
  it("admits exactly what governance's check admits: a configured key, or a user of the server's auth with an admin role", async () => {
    const check = adminCredentialCheck(createAdminCheck({ keys: [KEY, `${KEY}-second`] }));
    expect(await check(KEY)).toBe(true);
    expect(await check(`${KEY}-second`)).toBe(true);
    expect(await check(`${KEY}x`)).toBe(false);
    expect(await check("")).toBe(false);
    expect(await adminCredentialCheck(createAdminCheck({ keys: [] }))(KEY)).toBe(false);
    const users: Record<string, { roles: string[] }> = { "ops-key": { roles: ["admin"] }, "dev-key": { roles: ["user"] } };
    const withAuth = adminCredentialCheck(createAdminCheck({ keys: [KEY] }), (credential) => users[credential] ?? null);
    expect(await withAuth("ops-key")).toBe(true);
    expect(await withAuth("dev-key")).toBe(false);
    expect(await withAuth("nobody")).toBe(false);
    // Governance without the server-admin role (roles: []): an auth user is never an admin, here as in the admin API.
    expect(
      await adminCredentialCheck(createAdminCheck({ keys: [KEY], roles: [] }), (credential) => users[credential] ?? null)("ops-key"),
    ).toBe(false);
  });
});

describe("crossSiteReason", () => {
  const ctx = (method: string, headers: Record<string, string>, fromTrustedProxy = true) =>
    ({ method, fromTrustedProxy, header: (name: string) => ({ host: "console.example:8080", ...headers })[name] }) as Parameters<
      typeof crossSiteReason
    >[0];
  it("lets reads through and same-origin writes; refuses other sites and writes that say nothing", () => {
    expect(crossSiteReason(ctx("GET", { "sec-fetch-site": "cross-site" }))).toBeUndefined();
    expect(crossSiteReason(ctx("POST", { "sec-fetch-site": "same-origin" }))).toBeUndefined();
    expect(crossSiteReason(ctx("POST", { origin: "http://console.example:8080" }))).toBeUndefined();
    expect(
      crossSiteReason(
        ctx("POST", { origin: "https://console.example", "x-forwarded-proto": "https", "x-forwarded-host": "console.example" }),
      ),
    ).toBeUndefined();
    expect(crossSiteReason(ctx("DELETE", { "sec-fetch-site": "same-site" }))).toMatch(/same-site/);
    expect(crossSiteReason(ctx("PATCH", { origin: "http://evil.example" }))).toMatch(/another site/);
    expect(crossSiteReason(ctx("POST", {}))).toMatch(/neither/);
  });

  it("believes X-Forwarded-Host and -Proto only from a proxy trustProxy trusts", () => {
    const forged = { origin: "https://evil.example", "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" };
    expect(crossSiteReason(ctx("POST", forged, false))).toMatch(/another site/);
    expect(crossSiteReason(ctx("POST", { ...forged, origin: "https://console.example:8080" }, false))).toMatch(/another site/);
    expect(crossSiteReason(ctx("POST", { ...forged, origin: "http://console.example:8080" }, false))).toBeUndefined();
  });
});

for (const [name, makeStore] of [
  ["memory", () => new MemoryConsoleSessionStore()],
  ["redis", () => new RedisConsoleSessionStore(redis, prefix)],
] as Array<[string, () => ConsoleSessionStore]>) {
  describe(`ConsoleSessions on the ${name} store`, () => {
    it("keeps only a random id in the cookie and only digests in the store; the session opens the credential until it expires", async () => {
      const store = makeStore();
      const sessions = new ConsoleSessions({
        store,
        verifyAdmin: adminCredentialCheck(createAdminCheck({ keys: [KEY] })),
        adminKeys: [KEY],
        ttlMs: 1_000,
        path: "/console",
      });
      const signIn = context();
      await sessions.signIn(signIn, KEY);
      const cookie = signIn.set["set-cookie"] as string;
      const id = cookie.slice(`${CONSOLE_COOKIE}=`.length, cookie.indexOf(";"));
      expect(isSessionId(id)).toBe(true);
      expect(cookie).not.toContain(KEY);
      const stored = await store.get(sessionKey(id));
      expect(stored?.credentialDigest).toBe(credentialDigest(KEY));
      expect(JSON.stringify(stored)).not.toContain(KEY);
      if (name === "redis") {
        const raw = await redis.get(`${prefix}${sessionKey(id)}`);
        expect(raw).not.toContain(KEY);
        expect(await redis.exists(`${prefix}${id}`)).toBe(0);
        expect(await redis.pttl(`${prefix}${sessionKey(id)}`)).toBeGreaterThan(0);
      }
      const request = context({ cookie: `other=1; ${CONSOLE_COOKIE}=${id}` }, "GET");
      expect((await sessions.require(request)).credential).toBe(KEY);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await expect(sessions.require(request)).rejects.toMatchObject({ statusCode: 401, code: "CONSOLE_SIGN_IN_REQUIRED" });
    });

    it("ends every session of a credential the admin check stops accepting, and on sign-out", async () => {
      let accepted = true;
      const sessions = new ConsoleSessions({
        store: makeStore(),
        verifyAdmin: () => accepted,
        adminKeys: [],
        ttlMs: 60_000,
        path: "/console",
      });
      const signIn = context();
      await sessions.signIn(signIn, "a-credential-of-the-servers-own-auth");
      const id = (signIn.set["set-cookie"] as string).split(";")[0]?.split("=")[1] as string;
      const request = context({ cookie: `${CONSOLE_COOKIE}=${id}` }, "GET");
      expect((await sessions.require(request)).credential).toBe("a-credential-of-the-servers-own-auth");
      accepted = false;
      await expect(sessions.require(request)).rejects.toMatchObject({ statusCode: 401 });
      accepted = true;
      await expect(sessions.require(request)).rejects.toMatchObject({ statusCode: 401 });
      await expect(sessions.signIn(context(), "")).rejects.toMatchObject({ statusCode: 401, code: "INVALID_CREDENTIAL" });
      const failing = new ConsoleSessions({
        store: makeStore(),
        verifyAdmin: () => Promise.reject(new Error("store down")),
        ttlMs: 1_000,
        path: "/c",
      });
      await expect(failing.signIn(context(), KEY)).rejects.toMatchObject({ statusCode: 401 });
    });
  });
}

describe("sessions shared through Redis", () => {
  it("a session signed in on one process works on another that knows the admin key from its config", async () => {
    const options = {
      verifyAdmin: adminCredentialCheck(createAdminCheck({ keys: [KEY] })),
      adminKeys: [KEY],
      ttlMs: 60_000,
      path: "/console",
    };
    const first = new ConsoleSessions({ ...options, store: new RedisConsoleSessionStore(redis, prefix) });
    const second = new ConsoleSessions({ ...options, store: new RedisConsoleSessionStore(redis, prefix) });
    const signIn = context();
    await first.signIn(signIn, KEY);
    const id = (signIn.set["set-cookie"] as string).split(";")[0]?.split("=")[1] as string;
    expect((await second.require(context({ cookie: `${CONSOLE_COOKIE}=${id}` }, "GET"))).credential).toBe(KEY);
    const signOut = context({ cookie: `${CONSOLE_COOKIE}=${id}` }, "DELETE");
    await second.signOut(signOut);
    expect(signOut.set["set-cookie"]).toContain("Max-Age=0");
    await expect(first.require(context({ cookie: `${CONSOLE_COOKIE}=${id}` }, "GET"))).rejects.toMatchObject({ statusCode: 401 });
  });
});
