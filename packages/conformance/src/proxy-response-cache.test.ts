import { randomBytes } from "node:crypto";
import type { FakeAnthropic } from "@conduit-ai/fakes";
import type { UsageEvent } from "@conduit-ai/governance";
import type { ProxyConfigInput } from "@conduit-ai/proxy";
import { FAIL_FAST_REDIS_OPTIONS } from "@conduit-ai/server-core/internal";
import { Redis } from "ioredis";
import { afterEach, expect, it } from "vitest";
import { CACHED_MODEL, type CachedGateway, type Json, type RecordingSink, startCachedGateway } from "./fixtures/response-cache-gateway.js";
import { type RunningServer, forEachAdapter } from "./harness.js";

// The proxy's exact response cache on /v1/messages: the same request of the same team within the
// TTL is answered from the cache (x-conduit-cache: hit), JSON or the same stream byte for byte, at
// $0 against budgets with what it saved in its usage event; another team, or `x-conduit-cache: off`,
// goes upstream; a Redis store that is down is a miss, never an error.

const MODEL = CACHED_MODEL;
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

forEachAdapter("proxy response cache", ({ start }) => {
  let gateway: CachedGateway | undefined;
  let redis: Redis | undefined;
  afterEach(async () => {
    await gateway?.close();
    redis?.disconnect();
    gateway = undefined;
    redis = undefined;
  });
  // What the cases read of the running gateway.
  let anthropic: FakeAnthropic;
  let sink: RecordingSink;
  async function serve(cache: ProxyConfigInput["cache"], client?: Redis, redisPrefix?: string): Promise<RunningServer> {
    gateway = await startCachedGateway(start, cache, client && redisPrefix ? { client, prefix: redisPrefix } : undefined);
    anthropic = gateway.anthropic;
    sink = gateway.sink;
    return gateway;
  }
  const admin = (_server: RunningServer, method: string, path: string, body?: unknown) =>
    (gateway as CachedGateway).admin(method, path, body);
  const keys = (_server: RunningServer) => (gateway as CachedGateway).teamKeys();
  const ask = (server: RunningServer, key: string, body: Json, headers: Record<string, string> = {}) =>
    fetch(server.url("/v1/messages"), {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const question = (stream: boolean, text = "What is a cache?") => ({
    model: MODEL,
    max_tokens: 64,
    stream,
    messages: [{ role: "user", content: text }],
  });
  const waitForEvents = (count: number) => (gateway as CachedGateway).waitForEvents(count);

  it("JSON: miss, then a hit for the same team (keys reordered), never for another team; a hit is $0 with what it saved", async () => {
    const server = await serve({ store: "memory", ttlSeconds: 60 });
    const { alpha1, alpha2, beta } = await keys(server);
    const first = await ask(server, alpha1.key, question(false));
    expect(first.status).toBe(200);
    expect(first.headers.get("x-conduit-cache")).toBe("miss");
    const firstBody = await first.text();
    // The same request with its keys in another order, on another key of the same team.
    const { messages, ...rest } = question(false);
    const second = await ask(server, alpha2.key, { messages, ...rest });
    expect(second.headers.get("x-conduit-cache")).toBe("hit");
    expect(second.headers.get("content-type")).toContain("application/json");
    expect(await second.text()).toBe(firstBody);
    expect(anthropic.exchanges).toHaveLength(1);
    const other = await ask(server, beta.key, question(false));
    expect(other.headers.get("x-conduit-cache")).toBe("miss");
    await other.text();
    expect(anthropic.exchanges).toHaveLength(2);
    // Another question is another entry.
    const different = await ask(server, alpha2.key, question(false, "And a hit?"));
    expect(different.headers.get("x-conduit-cache")).toBe("miss");
    await different.text();

    await waitForEvents(4);
    const paid = sink.events.find((event) => event.key === alpha1.id) as UsageEvent;
    const hit = sink.events.find((event) => event.key === alpha2.id && event.target === `cache/${MODEL}`) as UsageEvent;
    expect(paid.costUsd).toBeGreaterThan(0);
    expect(hit).toMatchObject({ costUsd: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, model: MODEL });
    expect(hit.savedUsd).toBeCloseTo(paid.costUsd, 12);
    const spend = (await admin(server, "GET", `/admin/keys/${alpha2.id}`)).data.spend[0];
    const differentCost = sink.events
      .filter((event) => event.key === alpha2.id && event.target !== `cache/${MODEL}`)
      .reduce((sum, event) => sum + event.costUsd, 0);
    expect(spend.spentUsd).toBeCloseTo(differentCost, 12);
  });

  it("a stream: miss, then the same events byte for byte; x-conduit-cache: off goes upstream", async () => {
    const server = await serve({ store: "memory" });
    const { alpha1, alpha2 } = await keys(server);
    const first = await ask(server, alpha1.key, question(true));
    expect(first.headers.get("x-conduit-cache")).toBe("miss");
    const firstEvents = await first.text();
    expect(firstEvents).toContain("event: message_stop");
    const replay = await ask(server, alpha2.key, question(true));
    expect(replay.headers.get("x-conduit-cache")).toBe("hit");
    expect(replay.headers.get("content-type")).toContain("text/event-stream");
    expect(await replay.text()).toBe(firstEvents);
    // The JSON form of the same question is another answer.
    const json = await ask(server, alpha2.key, question(false));
    expect(json.headers.get("x-conduit-cache")).toBe("miss");
    await json.text();
    const bypass = await ask(server, alpha2.key, question(true), { "x-conduit-cache": "off" });
    expect(bypass.status).toBe(200);
    expect(bypass.headers.get("x-conduit-cache")).toBeNull();
    await bypass.text();
    expect(anthropic.exchanges).toHaveLength(3);
  });

  it("/v1/chat/completions: a hit for the same team, JSON and the same stream byte for byte, $0 with what it saved", async () => {
    const server = await serve({ store: "memory" });
    const { alpha1, alpha2, beta } = await keys(server);
    const chat = (key: string, stream: boolean) =>
      fetch(server.url("/v1/chat/completions"), {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: MODEL,
          max_tokens: 32,
          messages: [{ role: "user", content: "Cache me" }],
          ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
        }),
      });
    for (const stream of [false, true]) {
      const first = await chat(alpha1.key, stream);
      expect(first.status).toBe(200);
      expect(first.headers.get("x-conduit-cache")).toBe("miss");
      const firstText = await first.text();
      const again = await chat(alpha2.key, stream);
      expect(again.headers.get("x-conduit-cache")).toBe("hit");
      expect(await again.text()).toBe(firstText);
      const other = await chat(beta.key, stream);
      expect(other.headers.get("x-conduit-cache")).toBe("miss");
      await other.text();
    }
    expect(anthropic.exchanges).toHaveLength(4);
    await waitForEvents(6);
    const hits = sink.events.filter((event) => event.target === `cache/${MODEL}`);
    expect(hits).toHaveLength(2);
    for (const hit of hits) {
      expect(hit.costUsd).toBe(0);
      expect(hit.savedUsd).toBeGreaterThan(0);
    }
  });

  it("without proxy.cache: only keys and teams with cache: true are cached; a key's cache: false wins over its team", async () => {
    const server = await serve(undefined);
    await admin(server, "POST", "/admin/teams", { id: "cached", name: "Cached", cache: true });
    await admin(server, "POST", "/admin/teams", { id: "plain", name: "Plain" });
    const make = async (team: string, extra = {}) =>
      (await admin(server, "POST", "/admin/keys", { name: team, team, ...extra })).data as { key: string };
    const inTeam = await make("cached");
    const optedOut = await make("cached", { cache: false });
    const plain = await make("plain");
    const optedIn = await make("plain", { cache: true });
    const twice = async (key: string, text: string) => {
      const headers: Array<string | null> = [];
      for (let round = 0; round < 2; round++) {
        const response = await ask(server, key, question(false, text));
        expect(response.status).toBe(200);
        headers.push(response.headers.get("x-conduit-cache"));
        await response.text();
      }
      return headers;
    };
    expect(await twice(inTeam.key, "team opted in")).toEqual(["miss", "hit"]);
    expect(await twice(optedOut.key, "key opted out")).toEqual([null, null]);
    expect(await twice(plain.key, "nobody asked")).toEqual([null, null]);
    expect(await twice(optedIn.key, "key opted in")).toEqual(["miss", "hit"]);
    expect(anthropic.exchanges).toHaveLength(6);
  });

  it("on Redis: entries under the server's prefix and one hash tag, shared; Redis down is a miss, never an error", async () => {
    const prefix = `test:${randomBytes(5).toString("hex")}:proxy:`;
    redis = new Redis(redisUrl, { ...FAIL_FAST_REDIS_OPTIONS });
    const server = await serve({ store: "redis", ttlSeconds: 30, maxEntries: 2 }, redis, prefix);
    const { alpha1, alpha2 } = await keys(server);
    const first = await ask(server, alpha1.key, question(false));
    expect(first.headers.get("x-conduit-cache")).toBe("miss");
    await first.text();
    for (let tries = 0; tries < 200 && (await redis.keys(`{${prefix}cache}:*`)).length < 2; tries++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const hit = await ask(server, alpha2.key, question(false));
    expect(hit.headers.get("x-conduit-cache")).toBe("hit");
    await hit.text();
    // Bounded in count: three answers stored, two kept — the oldest goes.
    const entries = async () => (await redis?.keys(`{${prefix}cache}:*`))?.filter((key) => !key.endsWith(":index")) ?? [];
    const [oldest] = await entries();
    for (const text of ["two", "three"]) await (await ask(server, alpha1.key, question(false, text))).text();
    let stored = await entries();
    for (let tries = 0; tries < 200 && (stored.includes(oldest as string) || stored.length !== 2); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      stored = await entries();
    }
    expect(stored).toHaveLength(2);
    expect(stored).not.toContain(oldest);
    expect(await redis.ttl(stored[0] as string)).toBeGreaterThan(0);
    await redis.del(...(await redis.keys(`{${prefix}cache}:*`)));
    redis.disconnect();
    // Redis gone: the same call goes upstream and answers.
    const during = await ask(server, alpha2.key, question(false, "Redis is down"));
    expect(during.status).toBe(200);
    expect(during.headers.get("x-conduit-cache")).toBe("miss");
    const again = await ask(server, alpha2.key, question(false, "Redis is down"));
    expect(again.status).toBe(200);
    expect(again.headers.get("x-conduit-cache")).toBe("miss");
    await again.text();
  });
});
