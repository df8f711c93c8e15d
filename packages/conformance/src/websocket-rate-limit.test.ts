import { randomUUID } from "node:crypto";
import { RedisRateLimitStore } from "@conduit-ai/server-core/middleware";
import { FAIL_FAST_REDIS_OPTIONS } from "@conduit-ai/server-core/internal";
import { attachWebSocket } from "@conduit-ai/websocket";
import { Redis } from "ioredis";
import { afterAll, expect, it } from "vitest";
import { createContractRuntime } from "./fixtures/contract-runtime.js";
import { WsClient, upgradeRefusal } from "./fixtures/ws-client.js";
import { forEachAdapter } from "./harness.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { ...FAIL_FAST_REDIS_OPTIONS });
const prefix = `test:${randomUUID()}:`;
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const ping = { method: "GET" as const, path: "/ping", handler: () => "pong" };
const generate = (id: string) => ({ type: "generate", id, payload: { input: { text: `hello ${id}` } } });

forEachAdapter("one rate-limit budget across HTTP and WebSocket", ({ start }) => {
  it("with a limit of 5: upgrades and work messages spend the HTTP budget; over it → error frame, 429 upgrade, 429 over HTTP", async () => {
    const server = await start({
      config: { rateLimit: { maxRequests: 5, windowMs: 60_000 } },
      setup: (adapter) => {
        adapter.registerRoute(ping);
        attachWebSocket(adapter, { runtime: createContractRuntime() });
      },
    });
    for (let index = 0; index < 2; index++) expect((await fetch(server.url("/api/ping"))).status).toBe(200); // 2 spent
    const client = await WsClient.open(server.port); // 3
    for (let index = 0; index < 50; index++) client.send(generate(`g${index}`));
    const answered = await client.waitFor((message) => message.type === "result", 2);
    const refused = await client.waitFor((message) => message.type === "error", 48);
    expect(answered).toHaveLength(2);
    expect(refused).toHaveLength(48);
    expect(refused[0]?.payload).toMatchObject({ code: "RATE_LIMIT_EXCEEDED", details: { limit: 5 } });
    expect(refused[0]?.payload.retryAfter).toBeGreaterThan(0);
    expect(refused[0]?.payload.retryAfter).toBeLessThanOrEqual(60);
    // Messages that start no work are not counted (and still answered).
    client.send({ type: "no-such-type", id: "x" });
    expect((await client.waitFor((message) => message.id === "x"))[0]?.payload.code).toBe("UNKNOWN_MESSAGE_TYPE");
    client.close();

    const http = await fetch(server.url("/api/ping"));
    expect(http.status).toBe(429);
    expect((await http.json()).error.code).toBe("RATE_LIMIT_EXCEEDED");
    const upgrade = await upgradeRefusal(server.port);
    expect(upgrade?.status).toBe(429);
    expect(upgrade?.body.error).toMatchObject({ code: "RATE_LIMIT_EXCEEDED", category: "RATE_LIMIT" });
    expect(Number(upgrade?.headers["retry-after"])).toBeGreaterThan(0);
    expect(upgrade?.headers["x-ratelimit-limit"]).toBe("5");
    expect(upgrade?.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("upgrades alone are limited too", async () => {
    const server = await start({
      config: { rateLimit: { maxRequests: 3, windowMs: 60_000 } },
      setup: (adapter) => void attachWebSocket(adapter, { runtime: createContractRuntime() }),
    });
    const statuses: Array<number | undefined> = [];
    for (let index = 0; index < 5; index++) statuses.push((await upgradeRefusal(server.port))?.status);
    expect(statuses).toEqual([undefined, undefined, undefined, 429, 429]);
  });

  it("shares the Redis store with another server: both servers spend one budget per client", async () => {
    const keyPrefix = `${prefix}${randomUUID()}:`;
    const config = { rateLimit: { maxRequests: 4, windowMs: 60_000, store: new RedisRateLimitStore(redis, { prefix: keyPrefix }) } };
    const setup = (adapter: Parameters<NonNullable<Parameters<typeof start>[0]>["setup"] & object>[0]) => {
      adapter.registerRoute(ping);
      attachWebSocket(adapter, { runtime: createContractRuntime() });
    };
    const first = await start({ config, setup });
    const second = await start({ config, setup });
    const client = await WsClient.open(first.port); // 1
    client.send(generate("a")); // 2
    await client.waitFor((message) => message.id === "a");
    expect((await fetch(second.url("/api/ping"))).status).toBe(200); // 3
    client.send(generate("b")); // 4
    client.send(generate("c")); // over
    const [b] = await client.waitFor((message) => message.id === "b");
    const [c] = await client.waitFor((message) => message.id === "c");
    expect(b?.type).toBe("result");
    expect(c?.payload.code).toBe("RATE_LIMIT_EXCEEDED");
    expect((await fetch(second.url("/api/ping"))).status).toBe(429);
    expect((await upgradeRefusal(second.port))?.status).toBe(429);
    client.close();
  });

  it("rateLimit: false keeps the WebSocket surface out of the budget", async () => {
    const server = await start({
      config: { rateLimit: { maxRequests: 1, windowMs: 60_000 } },
      setup: (adapter) => void attachWebSocket(adapter, { runtime: createContractRuntime(), rateLimit: false }),
    });
    const client = await WsClient.open(server.port);
    for (let index = 0; index < 3; index++) client.send(generate(`n${index}`));
    expect(await client.waitFor((message) => message.type === "result", 3)).toHaveLength(3);
    client.close();
  });
});
