import {
  type ConduitProxy,
  MemoryPoolStore,
  type ProxyConfigInput,
  type ProxyOptions,
  chatCompletionsFor,
  createProxy,
} from "@conduit-ai/proxy";
import { createClientCheck, createCodexRouteGroup, createCodexSender } from "@conduit-ai/proxy";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { CLIENT_KEY } from "@conduit-ai/proxy/testing";
import { type ServerAdapterConfig, registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

// Conduit's own errors on the proxy paths come in the vendor's shape (Anthropic's
// on /v1/messages*, OpenAI's on the other /v1/*, the codex backend's on codex), final client
// errors with `x-should-retry: false`; /accounts and /limits answer in Conduit's envelope throughout.
const ASK = JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });

class DownStore extends MemoryPoolStore {
  override async readStates(): Promise<never> {
    throw new Error("connect ECONNREFUSED 10.0.0.7:6379");
  }
  override async readUsage(): Promise<never> {
    throw new Error("connect ECONNREFUSED 10.0.0.7:6379");
  }
}

forEachAdapter("proxy errors in the vendor's shape", ({ start }) => {
  let fake: FakeAnthropic;
  let proxy: ConduitProxy | undefined;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-a");
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await fake.close();
  });

  async function serve(config: ProxyConfigInput = {}, options: ProxyOptions = {}, server: ServerAdapterConfig = {}) {
    proxy = createProxy(
      {
        enabled: true,
        clientKeys: [CLIENT_KEY],
        retryBaseMs: 5,
        upstream: { anthropic: fake.url, codex: fake.url },
        accounts: [{ id: "a", type: "api-key", apiKey: "sk-a" }],
        ...config,
      },
      { chatCompletions: chatCompletionsFor(), ...options },
    );
    const current = proxy;
    return start({
      config: { rateLimit: { enabled: false }, ...server },
      setup: (adapter) => {
        registerAllRoutes(adapter, undefined, { proxy: current });
        adapter.registerRouteGroup(
          createCodexRouteGroup({
            sendCodex: createCodexSender({ pool: current.pool, config: current.config }),
            isClientAllowed: createClientCheck(current.config.clientKeys),
          }),
        );
      },
    });
  }

  const post = (url: string, body = ASK, headers: Record<string, string> = {}) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

  it("401 without a client key: Anthropic's shape with request-id, OpenAI's, codex's; never retried", async () => {
    const server = await serve();
    const messages = await post(server.url("/v1/messages"));
    expect(messages.status).toBe(401);
    expect(messages.headers.get("x-should-retry")).toBe("false");
    expect(messages.headers.get("request-id")).toBe(messages.headers.get("x-request-id"));
    expect(await messages.json()).toEqual({ type: "error", error: { type: "authentication_error", message: expect.any(String) } });
    const chat = await post(server.url("/v1/chat/completions"), JSON.stringify({ model: "claude-sonnet-4-5", messages: [] }));
    expect(chat.status).toBe(401);
    expect(chat.headers.get("x-should-retry")).toBe("false");
    expect(await chat.json()).toEqual({
      error: { message: expect.any(String), type: "invalid_request_error", param: null, code: "invalid_api_key" },
    });
    const codex = await post(server.url("/backend-api/codex/responses"), '{"model":"gpt-5-codex"}');
    expect(codex.status).toBe(401);
    expect(codex.headers.get("x-should-retry")).toBe("false");
    expect(await codex.json()).toMatchObject({ error: { type: "invalid_api_key", message: expect.any(String) } });
    expect(fake.exchanges).toHaveLength(0);
  });

  it("a 401 says whether the key was missing or wrong, on every surface, never echoing the key", async () => {
    const server = await serve();
    const wrong = { "x-api-key": "sk-wrong-key-0123456789" };
    const chatBody = JSON.stringify({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] });
    const cases = [
      ["/v1/messages", ASK, (body: { error: { message: string } }) => body.error.message],
      ["/v1/chat/completions", chatBody, (body: { error: { message: string } }) => body.error.message],
      ["/backend-api/codex/responses", '{"model":"gpt-5-codex"}', (body: { error: { message: string } }) => body.error.message],
    ] as const;
    for (const [path, body, messageOf] of cases) {
      const missing = messageOf(await (await post(server.url(path), body)).json());
      const invalid = messageOf(await (await post(server.url(path), body, wrong)).json());
      expect(missing, path).toMatch(/required/);
      expect(invalid, path).toMatch(/not valid/);
      expect(invalid, path).not.toContain("sk-wrong-key");
    }
  });

  it("unknown routes: 404 in the shape of the surface whose paths they are", async () => {
    const server = await serve();
    const openai = await post(server.url("/v1/no-such-surface"), "{}", { authorization: `Bearer ${CLIENT_KEY}` });
    expect(openai.status).toBe(404);
    expect(openai.headers.get("x-should-retry")).toBe("false");
    expect(await openai.json()).toEqual({
      error: { message: "Invalid URL (POST /v1/no-such-surface)", type: "invalid_request_error", param: null, code: "not_found" },
    });
    const anthropic = await fetch(server.url("/v1/messages/no-such-thing"), { headers: { "x-api-key": CLIENT_KEY } });
    expect(anthropic.status).toBe(404);
    expect(await anthropic.json()).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    const codex = await fetch(server.url("/backend-api/codex/no-such-thing"));
    expect(codex.status).toBe(404);
    expect(await codex.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    // Outside the proxy's paths the envelope stays.
    const envelope = await fetch(server.url("/nowhere"));
    expect(await envelope.json()).toMatchObject({ error: { code: "ROUTE_NOT_FOUND" } });
  });

  it("413 over the body limit: request_too_large in Anthropic's shape, OpenAI's on chat completions", async () => {
    const server = await serve({}, {}, { bodyParser: { limit: 2048 } });
    const big = JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content: "x".repeat(4096) }] });
    const messages = await post(server.url("/v1/messages"), big, { "x-api-key": CLIENT_KEY });
    expect(messages.status).toBe(413);
    expect(messages.headers.get("x-should-retry")).toBe("false");
    expect(await messages.json()).toMatchObject({ type: "error", error: { type: "request_too_large" } });
    const chat = await post(server.url("/v1/chat/completions"), big, { authorization: `Bearer ${CLIENT_KEY}` });
    expect(chat.status).toBe(413);
    expect(chat.headers.get("x-should-retry")).toBe("false");
    expect(await chat.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    expect(fake.exchanges).toHaveLength(0);
  });

  it("408 when upstream outlasts the proxy's route timeout, in Anthropic's shape, retryable", async () => {
    fake.responseDelayMs = 2_000;
    const server = await serve({ timeoutMs: 300 });
    const response = await post(server.url("/v1/messages"), ASK, { "x-api-key": CLIENT_KEY });
    expect(response.status).toBe(408);
    expect(response.headers.get("x-should-retry")).toBeNull();
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "timeout_error" } });
  });

  it("the pool's store down: 503 STORE_UNAVAILABLE with retry-after, Anthropic's shape on /v1/messages, the envelope on /accounts", async () => {
    const server = await serve({}, { store: new DownStore() });
    const messages = await post(server.url("/v1/messages"), ASK, { "x-api-key": CLIENT_KEY });
    expect(messages.status).toBe(503);
    expect(messages.headers.get("retry-after")).toBe("2");
    const body = await messages.json();
    expect(body).toMatchObject({ type: "error", error: { type: "api_error" } });
    expect(JSON.stringify(body)).not.toContain("10.0.0.7");
    const accounts = await fetch(server.url("/accounts"), { headers: { "x-api-key": CLIENT_KEY } });
    expect(accounts.status).toBe(503);
    expect(accounts.headers.get("retry-after")).toBe("2");
    expect(await accounts.json()).toMatchObject({ error: { code: "STORE_UNAVAILABLE" } });
  });

  it("limits per client key, not per address: 429 in the vendor's shape with retry-after; the server's limiter leaves the proxy alone", async () => {
    const other = "second-client-key-0123456789";
    const server = await serve(
      { clientKeys: [CLIENT_KEY, other], rateLimit: { maxRequests: 3, windowMs: 60_000 } },
      {},
      { rateLimit: { enabled: true, maxRequests: 2, windowMs: 60_000 } },
    );
    for (let turn = 0; turn < 3; turn++) {
      const response = await post(server.url("/v1/messages"), ASK, { "x-api-key": CLIENT_KEY });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBe("3");
      await response.arrayBuffer();
    }
    const limited = await post(server.url("/v1/messages"), ASK, { "x-api-key": CLIENT_KEY });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-should-retry")).toBeNull();
    expect(await limited.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    const chat = await post(
      server.url("/v1/chat/completions"),
      JSON.stringify({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] }),
      {
        authorization: `Bearer ${CLIENT_KEY}`,
      },
    );
    expect(chat.status).toBe(429);
    expect(await chat.json()).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limit_exceeded", param: null } });
    // Same address, another key: its own budget.
    const second = await post(server.url("/v1/messages"), ASK, { "x-api-key": other });
    expect(second.status).toBe(200);
    expect(fake.exchanges).toHaveLength(4);
  });

  it("a non-streaming chat completion outlives the server's timeout: the proxy route has its own", async () => {
    fake.responseDelayMs = 1_500;
    const server = await serve({ timeoutMs: 10_000 }, {}, { timeout: 500 });
    const chat = await post(
      server.url("/v1/chat/completions"),
      JSON.stringify({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] }),
      {
        authorization: `Bearer ${CLIENT_KEY}`,
      },
    );
    expect(chat.status).toBe(200);
    expect(await chat.json()).toMatchObject({ choices: [{ message: { content: "Hello from the fake — ünïcödé ✓ 🚀" } }] });
    // The server's own default still bounds the rest.
    expect((await fetch(server.url("/api/health"))).status).toBe(200);
  });

  it("/accounts and /limits answer in Conduit's envelope, success and errors alike", async () => {
    const server = await serve();
    for (const path of ["/accounts", "/limits?snapshot=true"]) {
      const refused = await fetch(server.url(path));
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: "AUTH_REQUIRED" }, metadata: { requestId: expect.any(String) } });
      const served = await fetch(server.url(path), { headers: { "x-api-key": CLIENT_KEY } });
      expect(served.status).toBe(200);
      expect(await served.json()).toMatchObject({ data: { accounts: [{ id: "a" }] }, metadata: { requestId: expect.any(String) } });
    }
  });
});
