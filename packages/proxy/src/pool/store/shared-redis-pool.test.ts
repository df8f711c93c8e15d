import { randomUUID } from "node:crypto";
import Anthropic from "@anthropic-ai/sdk";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { ProxyConfigInput } from "../../index.js";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "../../testing/index.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const ASK = { model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user" as const, content: "x" }] };

let fake: FakeAnthropic;
const servers: ProxyServer[] = [];
const clients: Redis[] = [];
let prefix: string;

afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
  await fake.close();
  // Only this test's keys: the Redis is shared.
  const cleaner = clients[0];
  if (cleaner) {
    const keys = await cleaner.keys(`${prefix}*`);
    if (keys.length > 0) await cleaner.del(...keys);
  }
  for (const client of clients.splice(0)) client.disconnect();
});

/** Two Conduit servers, each with its own Redis connection, sharing one pool through one key prefix. */
async function twoProcesses(config: ProxyConfigInput): Promise<[Anthropic, Anthropic, ProxyServer, ProxyServer]> {
  prefix = `test:proxy:${randomUUID()}:`;
  for (let index = 0; index < 2; index++) {
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    clients.push(redis);
    servers.push(await startProxyServer({ store: "redis", upstream: { anthropic: fake.url }, ...config }, { redis, redisPrefix: prefix }));
  }
  const [first, second] = servers as [ProxyServer, ProxyServer];
  const sdk = (server: ProxyServer) => new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url, maxRetries: 0 });
  return [sdk(first), sdk(second), first, second];
}

const API_KEY_ACCOUNTS = [
  { id: "a", type: "api-key" as const, apiKey: "sk-a" },
  { id: "b", type: "api-key" as const, apiKey: "sk-b", priority: 1 },
];

describe("two processes sharing one Redis pool", () => {
  it("a cooldown one process sees is honoured by the other", async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-a");
    fake.credentials.add("sk-b");
    const [one, two, , secondServer] = await twoProcesses({ accounts: API_KEY_ACCOUNTS });
    fake.script("sk-a", { status: 429, headers: { "retry-after": "600" }, body: "{}" });
    await one.messages.create(ASK);
    expect(fake.exchanges.map((exchange) => exchange.credential)).toEqual(["sk-a", "sk-b"]);
    // The second process never asks a: it learnt the cooldown from Redis.
    await two.messages.create(ASK);
    expect(fake.exchanges.at(-1)?.credential).toBe("sk-b");
    const rows = await secondServer.proxy.pool.rows();
    expect(rows.find((row) => row.id === "a")).toMatchObject({ status: "cooling", cooldownReason: "rate limited (429)" });
    // Usage from both processes adds up in one place.
    expect(rows.find((row) => row.id === "b")?.usage.totals.requests).toBe(2);
  });

  it("a disabled account is disabled for both", async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-b");
    const [one, two] = await twoProcesses({ accounts: API_KEY_ACCOUNTS });
    await one.messages.create(ASK);
    await two.messages.create(ASK);
    expect(fake.exchanges.map((exchange) => exchange.credential)).toEqual(["sk-a", "sk-b", "sk-b"]);
  });

  it("an operator's disable and enable hold for both processes (the console's account control)", async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-a");
    fake.credentials.add("sk-b");
    const [one, two, firstServer, secondServer] = await twoProcesses({ accounts: API_KEY_ACCOUNTS });
    await firstServer.proxy.pool.disable("a", "disabled from the operator console");
    await two.messages.create(ASK);
    expect(fake.exchanges.at(-1)?.credential).toBe("sk-b");
    expect((await secondServer.proxy.pool.rows()).find((row) => row.id === "a")).toMatchObject({ status: "disabled" });
    await secondServer.proxy.pool.enable("a");
    await one.messages.create(ASK);
    expect(fake.exchanges.at(-1)?.credential).toBe("sk-a");
    expect((await firstServer.proxy.pool.rows()).find((row) => row.id === "a")).toMatchObject({ status: "active", disabledReason: null });
  });

  it("an expiring OAuth token is refreshed once for both processes", async () => {
    fake = await startFakeAnthropic();
    fake.refreshDelayMs = 300;
    const [one, two] = await twoProcesses({
      accounts: [
        {
          id: "o",
          type: "oauth",
          accessToken: "access-old",
          refreshToken: "refresh-old",
          expiresAt: Date.now() + 1_000,
          tokenUrl: `${fake.url}/oauth/token`,
        },
      ],
    });
    await Promise.all([
      ...Array.from({ length: 5 }, () => one.messages.create(ASK)),
      ...Array.from({ length: 5 }, () => two.messages.create(ASK)),
    ]);
    expect(fake.refreshes).toHaveLength(1);
    expect(new Set(fake.exchanges.map((exchange) => exchange.credential)).size).toBe(1);
  });

  it("sticky sessions hold across processes", async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-a");
    fake.credentials.add("sk-b");
    const [one, two] = await twoProcesses({ accounts: API_KEY_ACCOUNTS, strategy: "round-robin" });
    await one.messages.create(ASK);
    await one.messages.create(ASK, { headers: { "x-conduit-session": "conv" } });
    for (let index = 0; index < 3; index++) await two.messages.create(ASK, { headers: { "x-conduit-session": "conv" } });
    const sticky = fake.exchanges.slice(1).map((exchange) => exchange.credential);
    expect(new Set(sticky).size).toBe(1);
  });
});
