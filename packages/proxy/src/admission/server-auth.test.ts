import Anthropic from "@anthropic-ai/sdk";
import { createAdapter } from "@conduit-ai/adapter-hono";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, expect, it } from "vitest";
import { createProxy } from "../index.js";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";

let fake: FakeAnthropic;
let stop: () => Promise<void> = async () => {};
afterEach(async () => {
  await stop();
  await fake.close();
});

it("admits whoever the server's own auth admitted, and no one else when no client key is configured", async () => {
  fake = await startFakeAnthropic();
  fake.credentials.add("sk-a");
  const proxy = createProxy({ enabled: true, upstream: { anthropic: fake.url }, accounts: [{ id: "a", type: "api-key", apiKey: "sk-a" }] });
  const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1", logging: { enabled: false }, rateLimit: { enabled: false } });
  // The server's own auth (any middleware that sets ctx.user): a user token of this server.
  adapter.registerMiddleware({
    name: "server-auth",
    handler: async (ctx, next) => {
      const presented = ctx.header("x-api-key") ?? ctx.header("authorization")?.replace(/^Bearer /, "");
      if (presented === "server-user-token") ctx.user = { id: "u1", roles: [], permissions: [] };
      await next();
    },
  });
  registerAllRoutes(adapter, undefined, { claudeProxy: proxy });
  await adapter.start();
  stop = async () => {
    await adapter.stop();
    await proxy.close();
  };
  const baseURL = `http://127.0.0.1:${adapter.address()?.port}`;
  const admitted = await new Anthropic({ apiKey: "server-user-token", baseURL, maxRetries: 0 }).messages.create({
    model: "m",
    max_tokens: 1,
    messages: [{ role: "user", content: "x" }],
  });
  expect(admitted.type).toBe("message");
  // No clientKeys: any other key is refused (fail closed), and never reaches upstream.
  const refused = await new Anthropic({ apiKey: "sk-a", baseURL, maxRetries: 0 }).messages
    .create({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "x" }] })
    .catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
  expect(fake.exchanges).toHaveLength(1);
});

it("a slow non-streaming answer outlives the server's timeout (the route has the proxy's own)", async () => {
  fake = await startFakeAnthropic();
  fake.credentials.add("sk-a");
  fake.responseDelayMs = 800;
  const proxy = createProxy({
    enabled: true,
    clientKeys: ["client-key-0123456789abcdef"],
    upstream: { anthropic: fake.url },
    accounts: [{ id: "a", type: "api-key", apiKey: "sk-a" }],
  });
  const adapter = createAdapter(undefined, {
    port: 0,
    host: "127.0.0.1",
    logging: { enabled: false },
    rateLimit: { enabled: false },
    timeout: 200,
  });
  registerAllRoutes(adapter, undefined, { proxy });
  await adapter.start();
  stop = async () => {
    await adapter.stop();
    await proxy.close();
  };
  const baseURL = `http://127.0.0.1:${adapter.address()?.port}`;
  const message = await new Anthropic({ apiKey: "client-key-0123456789abcdef", baseURL, maxRetries: 0 }).messages.create({
    model: "m",
    max_tokens: 1,
    messages: [{ role: "user", content: "x" }],
  });
  expect(message.type).toBe("message");
});
