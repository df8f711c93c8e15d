import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisRateLimitStore } from "./redis-rate-limit-store.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `test:${randomUUID()}:`;
let clientA: Redis;
let clientB: Redis;

beforeAll(() => {
  clientA = new Redis(REDIS_URL);
  clientB = new Redis(REDIS_URL);
});

afterAll(async () => {
  const keys = await clientA.keys(`${prefix}*`);
  if (keys.length > 0) await clientA.del(...keys);
  clientA.disconnect();
  clientB.disconnect();
});

describe("RedisRateLimitStore (real Redis)", () => {
  it("fixed window: two clients under concurrent load admit exactly maxRequests", async () => {
    const stores = [new RedisRateLimitStore(clientA, { prefix }), new RedisRateLimitStore(clientB, { prefix })];
    const check = { maxRequests: 25, windowMs: 864_000_000, subWindows: 1 };
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, index) => (stores[index % 2] as RedisRateLimitStore).hitWindow("fixed", check)),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(25);
    expect(Math.max(...results.map((result) => result.count))).toBe(25);
    expect(results.every((result) => result.resetMs > 0 && result.resetMs <= check.windowMs)).toBe(true);
  });

  it("sliding window: rejects past the limit and expires old sub-windows", async () => {
    const store = new RedisRateLimitStore(clientA, { prefix });
    const check = { maxRequests: 2, windowMs: 300, subWindows: 3 };
    const first = await Promise.all([store.hitWindow("slide", check), store.hitWindow("slide", check), store.hitWindow("slide", check)]);
    expect(first.map((result) => result.allowed).sort()).toEqual([false, true, true]);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect((await store.hitWindow("slide", check)).allowed).toBe(true);
  });

  it("token bucket: atomic across clients and refilled continuously", async () => {
    const stores = [new RedisRateLimitStore(clientA, { prefix }), new RedisRateLimitStore(clientB, { prefix })];
    const check = { capacity: 10, windowMs: 1000 };
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, index) => (stores[index % 2] as RedisRateLimitStore).takeToken("bucket", check)),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(10);
    const refused = results.find((result) => !result.allowed);
    expect(refused?.retryAfterMs).toBeGreaterThan(0);
    expect(refused?.retryAfterMs).toBeLessThanOrEqual(100);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const later = await Promise.all(Array.from({ length: 10 }, () => (stores[0] as RedisRateLimitStore).takeToken("bucket", check)));
    const admitted = later.filter((result) => result.allowed).length;
    expect(admitted).toBeGreaterThanOrEqual(2);
    expect(admitted).toBeLessThanOrEqual(4);
  });
});

describe("two server processes sharing one Redis", () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill("SIGTERM");
  });

  function startServer(keyPrefix: string, maxRequests: number): Promise<number> {
    const fixture = fileURLToPath(new URL("../../testing/redis-limit-server.fixture.ts", import.meta.url));
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--conditions=@conduit-ai/source", fixture, keyPrefix, String(maxRequests), "864000000"],
      {
        env: { ...process.env, REDIS_URL },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    children.push(child);
    return new Promise((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`fixture exited with ${code}`)));
      child.stdout?.once("data", (data: Buffer) =>
        resolve((JSON.parse(data.toString().split("\n")[0] as string) as { port: number }).port),
      );
    });
  }

  function get(port: number, agent: Agent): Promise<number> {
    return new Promise((resolve, reject) => {
      const request = httpRequest({ host: "127.0.0.1", port, path: "/api/hit", agent }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      });
      request.on("error", reject);
      request.end();
    });
  }

  it("admit exactly maxRequests together under concurrent load", async () => {
    const keyPrefix = `${prefix}procs:`;
    const ports = await Promise.all([startServer(keyPrefix, 30), startServer(keyPrefix, 30)]);
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const statuses = await Promise.all(Array.from({ length: 120 }, (_, index) => get(ports[index % 2] as number, agent)));
    agent.destroy();
    expect(statuses.filter((status) => status === 200)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(90);
  }, 60_000); // two server processes that each load the source through tsx: seconds apiece on a loaded CI machine
});
