import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { runConduitInProcess } from "../test-support/run-in-process.js";
import { killLeftovers, portOf, spawnConduit, writeConfig } from "../test-support/spawn-conduit.js";
import { createKeyBody } from "./keys-command.js";

// Two real `conduit serve` processes on one Redis with virtual keys on /api and /ws, driven by
// `conduit keys` as an operator would (run in-process: test-support/run-in-process.ts).
const ADMIN_KEY = `admin-${randomBytes(24).toString("hex")}`;
const prefix = `test:${randomBytes(6).toString("hex")}:`;
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

afterEach(killLeftovers);

/** A loopback port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
afterAll(async () => {
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`*${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe("conduit keys against two processes sharing Redis", () => {
  it("create (secret once) → the key works on the other process → rpm holds across both → rotate, list, revoke everywhere", async () => {
    const config = writeConfig({
      keys: { store: "redis" },
      admin: { keys: [ADMIN_KEY] },
      auth: { type: "virtual-key" },
      prices: { echo: { input: 1, output: 1 } },
    });
    const env = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix };
    const first = spawnConduit(["serve", "--port", "0", "--config", config], env);
    const second = spawnConduit(["serve", "--port", "0", "--config", config, "--framework", "fastify"], env);
    const urls = [`http://127.0.0.1:${portOf(await first.ready)}`, `http://127.0.0.1:${portOf(await second.ready)}`];
    const admin = { CONDUIT_ADMIN_KEY: ADMIN_KEY, CONDUIT_URL: urls[0] as string };

    const created = await runConduitInProcess(
      ["keys", "create", "--name", "ci-bot", "--rpm", "3", "--budget", "5/day", "--models", "echo"],
      admin,
    );
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string; hint: string };
    expect(key.key.startsWith("sk-conduit-")).toBe(true);
    expect(created.stderr).toContain("not shown again");

    const generate = (url: string, credential: string) =>
      fetch(`${url}/api/agent/generate`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${credential}` },
        body: JSON.stringify({ input: { text: "hello" }, model: "echo" }),
      });
    // Away from a minute's edge, so the rpm window holds all the calls.
    if (Date.now() % 60_000 > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 200));
    const statuses = [];
    for (const url of [urls[1], urls[0], urls[1], urls[0]]) statuses.push((await generate(url as string, key.key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await generate(urls[0] as string, "sk-conduit-unknown")).status).toBe(401);

    const listed = await runConduitInProcess(["keys", "list"], admin);
    expect(listed.stdout).toContain(key.id);
    expect(listed.stdout).toContain(`…${key.key.slice(-4)}`);
    expect(listed.stdout).not.toContain(key.key);

    const rotated = await runConduitInProcess(["keys", "rotate", key.id, "--grace", "0"], admin);
    const fresh = JSON.parse(rotated.stdout) as { key: string };
    expect((await generate(urls[1] as string, key.key)).status).toBe(401);

    const revoked = await runConduitInProcess(["keys", "revoke", key.id], admin);
    expect(revoked.stdout).toContain(`revoked ${key.id}`);
    const afterRevoke = await generate(urls[1] as string, fresh.key);
    expect(afterRevoke.status).toBe(401);
    expect(((await afterRevoke.json()) as { error: { code: string } }).error.code).toBe("INVALID_KEY");
  }, 240_000);

  it("the /ws upgrade takes a virtual key and its generate messages go through the same gate", async () => {
    const config = writeConfig({ keys: { store: "memory" }, admin: { keys: [ADMIN_KEY] }, auth: { type: "virtual-key" } });
    const server = spawnConduit(["serve", "--port", "0", "--config", config]);
    const url = `http://127.0.0.1:${portOf(await server.ready)}`;
    const created = await fetch(`${url}/admin/keys`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ name: "ws", models: ["echo"] }),
    });
    const { key } = ((await created.json()) as { data: { key: string } }).data;
    const refused = new WebSocket(`${url.replace("http", "ws")}/ws`, { headers: { "x-api-key": "sk-conduit-wrong" } });
    const refusedStatus = await new Promise<number>((resolve) =>
      refused.on("unexpected-response", (_, response) => resolve(response.statusCode ?? 0)),
    );
    expect(refusedStatus).toBe(401);
    const socket = new WebSocket(`${url.replace("http", "ws")}/ws`, { headers: { "x-api-key": key } });
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const replies: Array<{ type: string; id: string; payload: Record<string, unknown> }> = [];
    socket.on("message", (data) => replies.push(JSON.parse(String(data))));
    socket.send(JSON.stringify({ type: "generate", id: "ok", payload: { input: { text: "hi" }, model: "echo" } }));
    socket.send(JSON.stringify({ type: "generate", id: "denied", payload: { input: { text: "hi" }, model: "gpt-5" } }));
    await expect.poll(() => replies.filter((reply) => reply.id === "ok" || reply.id === "denied").length, { timeout: 10_000 }).toBe(2);
    expect(replies.find((reply) => reply.id === "ok")?.type).toBe("result");
    expect(replies.find((reply) => reply.id === "denied")).toMatchObject({ type: "error", payload: { code: "MODEL_NOT_ALLOWED" } });
    socket.close();
    const usage = await fetch(`${url}/admin/usage?groupBy=key`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(((await usage.json()) as { data: Array<{ requests: number }> }).data).toEqual([expect.objectContaining({ requests: 1 })]);
  }, 60_000);

  it("with the key store down, conduit keys says 503 STORE_UNAVAILABLE and when to retry, in one line (exit 1)", async () => {
    const redisPort = await freePort();
    const redisServer = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    try {
      const probe = new Redis(`redis://127.0.0.1:${redisPort}`, { lazyConnect: true, retryStrategy: () => 50 });
      probe.on("error", () => undefined);
      await expect.poll(() => probe.ping().catch(() => "down"), { timeout: 5_000 }).toBe("PONG");
      probe.disconnect();
      const config = writeConfig({ keys: { store: "redis" }, admin: { keys: [ADMIN_KEY] }, auth: { type: "virtual-key" } });
      const server = spawnConduit(["serve", "--port", "0", "--config", config], { REDIS_URL: `redis://127.0.0.1:${redisPort}` });
      const admin = { CONDUIT_ADMIN_KEY: ADMIN_KEY, CONDUIT_URL: `http://127.0.0.1:${portOf(await server.ready)}` };
      expect((await runConduitInProcess(["keys", "list"], admin)).code).toBe(0);
      redisServer.kill("SIGKILL");
      const listed = await runConduitInProcess(["keys", "list"], admin);
      expect(listed.code).toBe(1);
      const lines = listed.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^conduit keys list: 503 STORE_UNAVAILABLE: .*store is unavailable.* \(retry in \d+ s\)$/);
    } finally {
      redisServer.kill("SIGKILL");
    }
  }, 60_000);

  it("create's flags become the admin API's body; bad flags are usage errors", () => {
    expect(
      createKeyBody({ name: "n", team: "t", models: "a, b", rpm: "5", budget: ["10/day", "100/total"], expires: "2030-01-01T00:00:00Z" }),
    ).toEqual({
      name: "n",
      team: "t",
      models: ["a", "b"],
      limits: { rpm: 5 },
      budgets: [
        { usd: 10, window: "day" },
        { usd: 100, window: "total" },
      ],
      expiresAt: "2030-01-01T00:00:00Z",
    });
    expect(() => createKeyBody({ name: "n", budget: ["ten/day"] })).toThrow(/--budget/);
    expect(() => createKeyBody({ name: "n", rpm: "0" })).toThrow(/--rpm/);
    expect(() => createKeyBody({})).toThrow(/--name/);
  });

  it.each([
    ["--budget lots", ["--budget", "lots"], /--budget expects USD\/window/],
    ["--rpm 0", ["--rpm", "0"], /--rpm expects a positive integer/],
    ["--tpm many", ["--tpm", "many"], /--tpm expects a positive integer/],
  ])(
    "conduit keys create %s is a usage mistake: exit 2 and one line naming the flag, no request sent",
    async (_name, flags, pattern) => {
      // No server listens on this URL: a usage mistake must be reported before any request is tried.
      const run = await runConduitInProcess(["keys", "create", "--name", "ci", ...flags, "--url", "http://127.0.0.1:9"], {
        CONDUIT_ADMIN_KEY: ADMIN_KEY,
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(pattern);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).not.toContain("cannot reach");
      expect(run.stderr).not.toContain(ADMIN_KEY);
    },
    30_000,
  );
});
