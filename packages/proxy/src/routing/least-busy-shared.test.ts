import { randomUUID } from "node:crypto";
import { type FakeOpenAI, startFakeOpenAI } from "@conduit-ai/fakes";
import { createRuntime } from "@conduit-ai/runtime";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { chatCompletionsFor } from "../surfaces/openai-surfaces.js";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "../testing/proxy-server.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `test:least-busy:${randomUUID()}:`;
let east: FakeOpenAI;
let west: FakeOpenAI;
let runtime: ReturnType<typeof createRuntime>;
const clients: Redis[] = [];
const servers: ProxyServer[] = [];

beforeAll(async () => {
  // Every stream sends its first piece, then waits for release(): calls stay in flight.
  const held = () => ({ text: ["held ", "answer"], hold: true });
  [east, west] = await Promise.all([startFakeOpenAI({ answer: held }), startFakeOpenAI({ answer: held })]);
  runtime = createRuntime({
    env: {},
    maxRetries: 0,
    providers: {
      east: { type: "openai-compatible", baseURL: east.baseURL, models: ["llama3"] },
      west: { type: "openai-compatible", baseURL: west.baseURL, models: ["llama3"] },
    },
  });
  for (let index = 0; index < 2; index++) {
    const redis = new Redis(REDIS_URL);
    clients.push(redis);
    servers.push(
      await startProxyServer(
        { store: "redis", models: { busy: { targets: ["east/llama3", "west/llama3"], strategy: "least-busy" } } },
        { redis, redisPrefix: prefix, chatCompletions: chatCompletionsFor(runtime), runtime },
      ),
    );
  }
});
afterAll(async () => {
  for (const server of servers) await server.stop();
  await runtime.close();
  await Promise.all([east.close(), west.close()]);
  const keys = await clients[0]!.keys(`*${prefix}*`);
  if (keys.length > 0) await clients[0]!.del(...keys);
  for (const client of clients) client.disconnect();
});

const stream = (server: ProxyServer) =>
  fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${CLIENT_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "busy", stream: true, messages: [{ role: "user", content: "Hi" }] }),
  });

it("least-busy counts the streams another process has in flight on one Redis", async () => {
  const [first, second] = servers as [ProxyServer, ProxyServer];
  // Process one: a stream on east, held open.
  const one = await stream(first);
  expect(one.headers.get("x-conduit-model")).toBe("east/llama3");
  // Process two sees it: west has fewer calls in flight.
  const two = await stream(second);
  expect(two.headers.get("x-conduit-model")).toBe("west/llama3");
  // One each: a tie goes to the first in order; then west again.
  const three = await stream(second);
  expect(three.headers.get("x-conduit-model")).toBe("east/llama3");
  const four = await stream(first);
  expect(four.headers.get("x-conduit-model")).toBe("west/llama3");
  east.release();
  west.release();
  for (const response of [one, two, three, four]) expect(await response.text()).toContain("[DONE]");
  // Ended streams stop counting: both back to zero, so east (first in order) again.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const after = await stream(second);
  expect(after.headers.get("x-conduit-model")).toBe("east/llama3");
  await after.text();
});
