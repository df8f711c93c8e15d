import { randomUUID } from "node:crypto";
import { forwardInProcess, mountConsole } from "@conduit-ai/console";
import { type Governance, createGovernance } from "@conduit-ai/governance";
import { createRuntime } from "@conduit-ai/runtime";
import { type BaseServerAdapter, type ServerAdapterConfig, registerAllRoutes } from "@conduit-ai/server-core";
import { CredentialFailureGuard } from "@conduit-ai/server-core/internal";
import { Redis } from "ioredis";
import { afterAll, afterEach, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "./harness.js";

// The per-address request limit never locks an operator out of the console or /admin; failed
// credentials have their own limiter per address and per credential (shared on Redis), which
// keeps out guessers without keeping out a colleague's working key behind the same address.

const ADMIN_KEY = "admin-key-for-admin-limits-0123456789abcdef";
const asAdmin = { authorization: `Bearer ${ADMIN_KEY}` };
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: 1 });
const namespaces: string[] = [];
afterAll(async () => {
  for (const namespace of namespaces) {
    const keys = await redis.keys(`${namespace}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would
type Json = Record<string, any>;

forEachAdapter("admin surfaces: request limits and failed credentials", ({ start }) => {
  const governances: Governance[] = [];
  afterEach(async () => {
    for (const governance of governances.splice(0)) await governance.close();
  });

  async function serve(options: { config?: ServerAdapterConfig; failures?: CredentialFailureGuard; namespace?: string } = {}) {
    const governance = await createGovernance({
      keys: { store: options.namespace ? "redis" : "memory" },
      admin: { keys: [ADMIN_KEY] },
      env: {},
      ...(options.namespace ? { redis, namespace: options.namespace } : {}),
      ...(options.failures ? { credentialFailures: options.failures } : {}),
    });
    governances.push(governance);
    const server = await start({
      runtime: createRuntime({ env: {} }),
      config: options.config ?? {},
      setup: (adapter: BaseServerAdapter<unknown>) => {
        registerAllRoutes(adapter);
        governance.install(adapter, { virtualKeyAuth: true });
        mountConsole(adapter, {
          checkAdmin: governance.checkAdmin as never,
          adminKeys: [ADMIN_KEY],
          credentialFailures: governance.credentialFailures,
        });
      },
    });
    return { server, governance };
  }

  const signIn = (server: RunningServer, credential: string, headers: Record<string, string> = {}) =>
    fetch(server.url("/console/api/session"), {
      method: "POST",
      headers: { origin: `http://127.0.0.1:${server.port}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ credential }),
    });
  const admin = (server: RunningServer, credential: string, headers: Record<string, string> = {}) =>
    fetch(server.url("/admin/keys"), { headers: { authorization: `Bearer ${credential}`, ...headers } });

  it("a console page of many admin calls (each forwarded in process) never uses up the per-address limit", async () => {
    const { server } = await serve({ config: { rateLimit: { enabled: true, maxRequests: 10, windowMs: 60_000 } } });
    const signedIn = await signIn(server, ADMIN_KEY);
    expect(signedIn.status).toBe(200);
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    // A Keys page with many keys: one call per key, five times the per-address limit.
    const statuses: number[] = [];
    for (let index = 0; index < 50; index++)
      statuses.push((await fetch(server.url("/console/api/admin/keys"), { headers: { cookie } })).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    for (let index = 0; index < 15; index++) expect((await admin(server, ADMIN_KEY)).status).toBe(200);
    // The rest of the server still has its whole budget: none of the above was counted against it.
    const api = await fetch(server.url("/api/tools"));
    expect(api.headers.get("x-ratelimit-remaining")).toBe("9");
  });

  it("an in-process forward to a limited route is counted once, as the request that sent it", async () => {
    const server = await start({
      config: { rateLimit: { enabled: true, maxRequests: 4, windowMs: 60_000 } },
      setup: (adapter) => {
        adapter.registerRoute({ method: "GET", path: "/ping", handler: () => "pong" });
        adapter.registerRoute({
          method: "GET",
          path: "/relay",
          handler: (ctx) => forwardInProcess(adapter.handler, ctx, { path: "/api/ping", credential: undefined }),
        });
      },
    });
    const statuses: number[] = [];
    for (let index = 0; index < 5; index++) statuses.push((await fetch(server.url("/api/relay"))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it("failed admin credentials and sign-ins from one address: 429 with Retry-After; a working key from that address still works", async () => {
    const { server } = await serve({ failures: new CredentialFailureGuard({ maxFailuresPerAddress: 5, maxFailuresPerAccount: 100 }) });
    // A colleague's key that has worked before.
    expect((await admin(server, ADMIN_KEY)).status).toBe(200);
    const created = (await (
      await fetch(server.url("/admin/keys"), {
        method: "POST",
        headers: { ...asAdmin, "content-type": "application/json" },
        body: JSON.stringify({ name: "virtual" }),
      })
    ).json()) as Json;
    const statuses: number[] = [];
    for (let index = 0; index < 3; index++) statuses.push((await admin(server, `wrong-admin-key-${index}-0123456789abcdef`)).status);
    for (let index = 0; index < 2; index++) statuses.push((await signIn(server, `wrong-console-key-${index}-0123456789`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const locked = await admin(server, "yet-another-guess-0123456789abcdef");
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await locked.json()) as Json).error).toMatchObject({ code: "TOO_MANY_FAILED_CREDENTIALS", category: "RATE_LIMIT" });
    const lockedSignIn = await signIn(server, "a-console-guess-0123456789");
    expect(lockedSignIn.status).toBe(429);
    expect(Number(lockedSignIn.headers.get("retry-after"))).toBeGreaterThan(0);
    // A virtual key is not an admin's: while the address is locked it is kept out like any guess.
    expect((await admin(server, created.data.key)).status).toBe(429);
    // The working key is not locked out by the others' failures, on /admin or the console.
    expect((await admin(server, ADMIN_KEY)).status).toBe(200);
    expect((await signIn(server, ADMIN_KEY)).status).toBe(200);
    // No credential at all is no guess: still the plain 401.
    expect((await fetch(server.url("/admin/keys"))).status).toBe(401);
  });

  it("one credential failing from many addresses waits everywhere (per account), the others do not", async () => {
    const { server } = await serve({
      config: { trustProxy: "loopback" },
      failures: new CredentialFailureGuard({ maxFailuresPerAddress: 100, maxFailuresPerAccount: 3 }),
    });
    const from = (address: string) => ({ "x-forwarded-for": address });
    const stale = "a-revoked-admin-key-still-in-a-script-0123";
    const statuses: number[] = [];
    for (const address of ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"])
      statuses.push((await admin(server, stale, from(address))).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
    expect((await signIn(server, stale, from("203.0.113.5"))).status).toBe(429);
    expect((await admin(server, "some-other-wrong-key-0123456789", from("203.0.113.1"))).status).toBe(401);
    expect((await admin(server, ADMIN_KEY, from("203.0.113.1"))).status).toBe(200);
  });

  it("on Redis the failures are shared: a guesser locked out on one process is locked out on the other", async () => {
    const namespace = `test:admin-limits:${randomUUID()}`;
    namespaces.push(namespace);
    const first = await serve({ namespace });
    const second = await serve({ namespace });
    // The admin key has worked (on the first process): neither process keeps it out.
    expect((await admin(first.server, ADMIN_KEY)).status).toBe(200);
    const statuses: number[] = [];
    // The default per-address limit: 30 failures in 15 minutes.
    for (let index = 0; index < 30; index++) statuses.push((await admin(first.server, `guess-${index}-0123456789abcdef`)).status);
    expect(statuses.slice(0, 29).every((status) => status === 401)).toBe(true);
    expect(statuses[29]).toBe(429);
    expect((await admin(second.server, "a-fresh-guess-0123456789abcdef")).status).toBe(429);
    expect((await signIn(second.server, "a-console-guess-0123456789")).status).toBe(429);
    expect((await admin(second.server, ADMIN_KEY)).status).toBe(200);
  });
});
