import { randomUUID } from "node:crypto";
import { RedisConsoleSessionStore, mountConsole } from "@conduit-ai/console";
import { type Governance, createGovernance } from "@conduit-ai/governance";
import { createRuntime } from "@conduit-ai/runtime";
import { type BaseServerAdapter, registerAllRoutes } from "@conduit-ai/server-core";
import { FAIL_FAST_REDIS_OPTIONS } from "@conduit-ai/server-core/internal";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type ThrowawayRedis, freePort, startThrowawayRedis } from "./fixtures/throwaway-redis.js";
import { type RunningServer, forEachAdapter, sleep } from "./harness.js";

// The admin surface while its stores are out: Redis down or hung, PostgreSQL down. Every answer
// is 503 STORE_UNAVAILABLE with Retry-After (never a 500 HANDLER_ERROR), and the usage history
// shows on the health routes as a dependency that is not required, with its buffered events.

const ADMIN_KEY = "admin-key-for-admin-outages-0123456789abcdef";
const asAdmin = { authorization: `Bearer ${ADMIN_KEY}` };
const POSTGRES_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would
type Json = Record<string, any>;

let redis: ThrowawayRedis;
const clients: Redis[] = [];
beforeAll(async () => {
  redis = await startThrowawayRedis();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await redis.stop();
});

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const sameOrigin = (server: RunningServer) => ({ origin: `http://127.0.0.1:${server.port}`, "content-type": "application/json" });

/** 503 STORE_UNAVAILABLE naming `store`, with Retry-After, within the store deadline (not the request timeout). */
async function expectStoreUnavailable(answer: Promise<Response>, store: string): Promise<void> {
  const began = performance.now();
  const response = await answer;
  expect(performance.now() - began).toBeLessThan(4_000);
  const text = await response.text();
  expect(response.status, text).toBe(503);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  const body = JSON.parse(text) as Json;
  expect(body.error).toMatchObject({ code: "STORE_UNAVAILABLE", category: "EXTERNAL", details: { store } });
  expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|HANDLER_ERROR/);
}

forEachAdapter("admin surfaces while Redis is down or hung", ({ start }) => {
  let governance: Governance | undefined;
  afterEach(async () => {
    redis.resume();
    await redis.restart().catch(() => undefined);
    await governance?.close().catch(() => undefined);
    governance = undefined;
  });

  async function serve(): Promise<{ server: RunningServer; client: Redis }> {
    const client = new Redis(redis.url, { ...FAIL_FAST_REDIS_OPTIONS });
    client.on("error", () => undefined);
    clients.push(client);
    await until(() => client.status === "ready", "the Redis client");
    const namespace = `conduit:gov:${randomUUID()}`;
    governance = await createGovernance({ keys: { store: "redis" }, admin: { keys: [ADMIN_KEY] }, redis: client, namespace, env: {} });
    const server = await start({
      runtime: createRuntime({ env: {} }),
      config: { rateLimit: { enabled: false }, timeout: 10_000 },
      setup: (adapter: BaseServerAdapter<unknown>) => {
        registerAllRoutes(adapter);
        governance?.install(adapter, { virtualKeyAuth: true });
        mountConsole(adapter, {
          checkAdmin: governance?.checkAdmin as never,
          adminKeys: [ADMIN_KEY],
          sessions: new RedisConsoleSessionStore(client, `${namespace}:console:`),
        });
      },
    });
    return { server, client };
  }

  const signIn = (server: RunningServer) =>
    fetch(server.url("/console/api/session"), {
      method: "POST",
      headers: sameOrigin(server),
      body: JSON.stringify({ credential: ADMIN_KEY }),
    });

  for (const outage of ["hung (SIGSTOP)", "down (killed)"] as const) {
    it(`Redis ${outage}: /admin/keys, the console's sign-in and its forwarded admin calls answer 503 STORE_UNAVAILABLE with Retry-After`, async () => {
      const { server, client } = await serve();
      expect((await fetch(server.url("/admin/keys"), { headers: asAdmin })).status).toBe(200);
      const signedIn = await signIn(server);
      expect(signedIn.status).toBe(200);
      const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string;

      if (outage === "hung (SIGSTOP)") redis.pause();
      else {
        await redis.kill();
        await until(() => client.status !== "ready", "the client to notice");
      }
      // Side by side: a hung store costs each of them the store deadline.
      const writeTeam = { method: "POST", headers: { ...asAdmin, "content-type": "application/json" }, body: '{"name":"t"}' };
      // A presented credential meets the failed-credential counters first (on the same Redis): "auth-failures".
      await Promise.all([
        expectStoreUnavailable(fetch(server.url("/admin/keys"), { headers: asAdmin }), "auth-failures"),
        expectStoreUnavailable(fetch(server.url("/admin/teams"), writeTeam), "auth-failures"),
        // A wrong credential is refused too: an outage never lets anyone in.
        expectStoreUnavailable(
          fetch(server.url("/admin/keys"), { headers: { authorization: "Bearer not-the-admin-key-0123456789" } }),
          "auth-failures",
        ),
        expectStoreUnavailable(signIn(server), "console-sessions"),
        expectStoreUnavailable(fetch(server.url("/console/api/admin/keys"), { headers: { cookie } }), "console-sessions"),
        expectStoreUnavailable(fetch(server.url("/console/api/session"), { headers: { cookie } }), "console-sessions"),
      ]);

      if (outage === "hung (SIGSTOP)") redis.resume();
      else await redis.restart();
      await until(async () => (await fetch(server.url("/admin/keys"), { headers: asAdmin })).status === 200, "recovery");
    });
  }
});

forEachAdapter("admin surfaces while PostgreSQL is down", ({ start }) => {
  let governance: Governance | undefined;
  afterEach(async () => {
    await governance?.close().catch(() => undefined);
    governance = undefined;
  });

  async function serve(databaseUrl: string): Promise<RunningServer> {
    governance = await createGovernance({
      keys: { store: "memory" },
      admin: { keys: [ADMIN_KEY] },
      databaseUrl,
      spillFile: `/tmp/conduit-admin-outages-${randomUUID()}.ndjson`,
      env: {},
    });
    return start({
      runtime: createRuntime({ env: {} }),
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        registerAllRoutes(adapter);
        governance?.install(adapter, { virtualKeyAuth: true });
        mountConsole(adapter, { checkAdmin: governance?.checkAdmin as never, adminKeys: [ADMIN_KEY] });
      },
    });
  }

  it("GET /admin/usage answers 503 STORE_UNAVAILABLE with Retry-After (JSON and CSV)", async () => {
    const server = await serve(`postgres://postgres@127.0.0.1:${await freePort()}/postgres`);
    await expectStoreUnavailable(fetch(server.url("/admin/usage?groupBy=key"), { headers: asAdmin }), "usage-history");
    await expectStoreUnavailable(fetch(server.url("/admin/usage?groupBy=day&format=csv"), { headers: asAdmin }), "usage-history");
  });

  it("health lists PostgreSQL as a dependency that is not required, with its buffered events; the console's Health page too", async () => {
    const server = await serve(`postgres://postgres@127.0.0.1:${await freePort()}/postgres`);
    const created = (await (
      await fetch(server.url("/admin/keys"), {
        method: "POST",
        headers: { ...asAdmin, "content-type": "application/json" },
        body: JSON.stringify({ name: "k" }),
      })
    ).json()) as Json;
    const generated = await fetch(server.url("/api/agent/generate"), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${created.data.key}` },
      body: JSON.stringify({ input: { text: "hi" } }),
    });
    expect(generated.status).toBe(200);
    const detailed = async () => ((await (await fetch(server.url("/api/health/detailed"))).json()) as Json).data.dependencies.postgres;
    await until(async () => (await detailed())?.details?.bufferedEvents === 1, "the buffered event to show");
    expect(await detailed()).toMatchObject({ status: "down", required: false, details: { bufferedEvents: 1 } });
    expect((await detailed()).message).toMatch(/1 usage event buffered/);
    // Not required: the server stays ready.
    expect((await fetch(server.url("/api/health/ready"))).status).toBe(200);
    const signedIn = await fetch(server.url("/console/api/session"), {
      method: "POST",
      headers: sameOrigin(server),
      body: JSON.stringify({ credential: ADMIN_KEY }),
    });
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const consoleHealth = (await (await fetch(server.url("/console/api/health"), { headers: { cookie } })).json()) as Json;
    expect(consoleHealth.data.dependencies.postgres).toMatchObject({ status: "down", required: false, details: { bufferedEvents: 1 } });
  });

  it("a reachable PostgreSQL is listed ok with nothing buffered", async () => {
    const server = await serve(POSTGRES_URL);
    const detailed = ((await (await fetch(server.url("/api/health/detailed"))).json()) as Json).data.dependencies.postgres;
    expect(detailed).toMatchObject({ status: "ok", required: false, details: { bufferedEvents: 0 } });
    expect(detailed.latencyMs).toBeGreaterThanOrEqual(0);
  });
});
