import { randomUUID } from "node:crypto";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import { chunkFrame, completionBody, listenOnLoopback } from "@conduit-ai/fakes";
import { createRuntime } from "@conduit-ai/runtime";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyResetAt } from "../wire/provider-keys/key-reset.js";
import { ProviderKeyPools } from "./provider-key-pools.js";
import { MemoryPoolStore } from "./store/memory-store.js";
import { RedisPoolStore } from "./store/redis-store.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** An OpenAI-compatible upstream that rate limits `limited`, refuses `revoked`, and answers the rest. */
const seen: string[] = [];
let upstream: { url: string; close: () => Promise<void> };
beforeAll(async () => {
  upstream = await listenOnLoopback(
    createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = "";
      request.on("data", (part) => {
        body += part;
      });
      request.on("end", () => {
        const key = (request.headers.authorization ?? "").replace(/^Bearer /, "");
        seen.push(key);
        const json = JSON.parse(body) as { model: string; stream?: boolean };
        if (key === "limited") {
          response.writeHead(429, { "content-type": "application/json", "retry-after": "30" });
          return response.end(JSON.stringify({ error: { message: "Rate limit reached", type: "rate_limit_exceeded" } }));
        }
        if (key === "revoked") {
          response.writeHead(401, { "content-type": "application/json" });
          return response.end(JSON.stringify({ error: { message: "Incorrect API key provided: revoked", type: "invalid_api_key" } }));
        }
        if (json.stream) {
          response.writeHead(200, { "content-type": "text/event-stream" });
          response.write(chunkFrame(json.model, { role: "assistant", content: `served by ${key}` }));
          return response.end("data: [DONE]\n\n");
        }
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(completionBody({ text: [`served by ${key}`] }, json.model)));
      });
    }),
  );
});
afterAll(() => upstream.close());

function runtimeWith(pools: ProviderKeyPools, keys: string[]) {
  return createRuntime({
    env: {},
    maxRetries: 0,
    providers: { vllm: { type: "openai-compatible", baseURL: `${upstream.url}/v1`, apiKeys: keys, models: ["llama3"] } },
    keySources: pools.keySource,
  });
}

const gauge = () => {
  const values = new Map<string, number>();
  return { values, set: (labels: { key: string; status: string }, value: number) => values.set(`${labels.key}:${labels.status}`, value) };
};

describe("a provider's key pool", () => {
  it("serves every call from the other key while one answers 429, JSON and streams alike", async () => {
    seen.length = 0;
    const pools = new ProviderKeyPools({ store: new MemoryPoolStore(), resetAt: keyResetAt, warn: () => {} });
    const runtime = runtimeWith(pools, ["limited", "healthy"]);
    try {
      const texts: string[] = [];
      // A stream first (Conduit's own Chat Completions client swaps the key), then both kinds.
      for (let call = 0; call < 5; call++) {
        let streamed = "";
        for await (const event of runtime.stream({ input: { text: "hi" }, model: "vllm/llama3" }))
          if (event.type === "text-delta") streamed += (event.data as { delta: string }).delta;
        texts.push(streamed);
        texts.push((await runtime.generate({ input: { text: "hi" }, model: "vllm/llama3" })).content);
      }
      expect(texts).toEqual(Array(10).fill("served by healthy"));
      // The limited key was tried once, then cooled for its retry-after: never again.
      expect(seen.filter((key) => key === "limited")).toEqual(["limited"]);
      expect(await pools.usable("vllm")).toBe(true);
    } finally {
      await runtime.close();
    }
    // The AI SDK's path (a JSON call) swaps the key as well when it meets the limited key first.
    seen.length = 0;
    const fresh = new ProviderKeyPools({ store: new MemoryPoolStore(), resetAt: keyResetAt, warn: () => {} });
    const other = runtimeWith(fresh, ["limited", "healthy"]);
    try {
      expect((await other.generate({ input: { text: "hi" }, model: "vllm/llama3" })).content).toBe("served by healthy");
      expect(seen).toEqual(["limited", "healthy"]);
    } finally {
      await other.close();
    }
  });

  it("disables a refused key with one warning and the gauge, and says when no key is left", async () => {
    seen.length = 0;
    const warnings: string[] = [];
    const pools = new ProviderKeyPools({ store: new MemoryPoolStore(), resetAt: keyResetAt, warn: (line) => warnings.push(line) });
    const status = gauge();
    pools.attachGauge(status);
    const runtime = runtimeWith(pools, ["revoked", "limited"]);
    try {
      await expect(runtime.generate({ input: { text: "hi" }, model: "vllm/llama3" })).rejects.toMatchObject({ statusCode: 429 });
      await expect(runtime.generate({ input: { text: "hi" }, model: "vllm/llama3" })).rejects.toMatchObject({ statusCode: 429 });
      expect(seen).toEqual(["revoked", "limited"]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^providers\.vllm\.apiKeys\[0\] \(key vllm:[0-9a-f]{12}\) was refused with 401: disabled/);
      expect(warnings[0]).not.toContain("revoked");
      const [revokedId] = [...status.values.keys()].filter((name) => name.endsWith(":disabled") && status.values.get(name) === 1);
      expect(revokedId).toBeDefined();
      expect(await pools.usable("vllm")).toBe(false);
    } finally {
      await runtime.close();
    }
  });

  it("shares cooldowns between two processes on one Redis", async () => {
    seen.length = 0;
    const prefix = `test:keys:${randomUUID()}:`;
    const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
    const [first, second] = clients.map(
      (redis) => new ProviderKeyPools({ store: new RedisPoolStore(redis, prefix), resetAt: keyResetAt, warn: () => {} }),
    ) as [ProviderKeyPools, ProviderKeyPools];
    const runtimes = [runtimeWith(first, ["limited", "healthy"]), runtimeWith(second, ["limited", "healthy"])];
    try {
      await runtimes[0]?.generate({ input: { text: "hi" }, model: "vllm/llama3" });
      for (let call = 0; call < 3; call++) {
        const answer = await runtimes[1]?.generate({ input: { text: "hi" }, model: "vllm/llama3" });
        expect(answer?.content).toBe("served by healthy");
      }
      // The second process never tried the key the first one saw limited.
      expect(seen).toEqual(["limited", "healthy", "healthy", "healthy", "healthy"]);
      expect(await second.usable("vllm")).toBe(true);
    } finally {
      for (const runtime of runtimes) await runtime.close();
      const keys = await clients[0]!.keys(`*${prefix}*`);
      if (keys.length > 0) await clients[0]!.del(...keys);
      for (const client of clients) client.disconnect();
    }
  });
});
