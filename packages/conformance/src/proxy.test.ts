import Anthropic from "@anthropic-ai/sdk";
import { type ConduitProxy, type ProxyConfigInput, createProxy } from "@conduit-ai/proxy";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { CLIENT_KEY } from "@conduit-ai/proxy/testing";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "./harness.js";

const ASK = { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user" as const, content: "Bonjour ✓ 🚀" }] };

forEachAdapter("proxy surfaces: /v1/messages, /limits, /accounts", ({ start }) => {
  let fake: FakeAnthropic;
  let proxy: ConduitProxy;
  let sentBodies: string[];

  beforeEach(async () => {
    sentBodies = [];
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-a");
    fake.credentials.add("sk-b");
  });
  afterEach(async () => {
    await proxy?.close();
    await fake.close();
  });

  async function serve(config: ProxyConfigInput = {}): Promise<{ server: RunningServer; sdk: Anthropic }> {
    proxy = createProxy({
      enabled: true,
      clientKeys: [CLIENT_KEY],
      retryBaseMs: 5,
      upstream: { anthropic: fake.url },
      accounts: [
        { id: "a", type: "api-key", apiKey: "sk-a" },
        { id: "b", type: "api-key", apiKey: "sk-b", priority: 1 },
      ],
      ...config,
    });
    const server = await start({
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => void registerAllRoutes(adapter, undefined, { proxy }),
    });
    const sdk = new Anthropic({
      apiKey: CLIENT_KEY,
      baseURL: server.url(""),
      maxRetries: 0,
      fetch: (async (url: string, init: RequestInit) => {
        if (typeof init.body === "string") sentBodies.push(init.body);
        return fetch(url, init);
      }) as typeof fetch,
    });
    return { server, sdk };
  }

  it("passes JSON and SSE (thinking, tools) through byte for byte, both ways", async () => {
    const { sdk } = await serve();
    const json = await sdk.messages.create(ASK).asResponse();
    expect(Buffer.from(await json.arrayBuffer()).equals(fake.exchanges.at(-1)?.sent as Buffer)).toBe(true);
    expect(fake.exchanges.at(-1)?.body.toString()).toBe(sentBodies.at(-1));
    const stream = await sdk.messages
      .create({
        ...ASK,
        stream: true,
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools: [{ name: "lookup", input_schema: { type: "object" } }],
      })
      .asResponse();
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    expect(Buffer.from(await stream.arrayBuffer()).equals(fake.exchanges.at(-1)?.sent as Buffer)).toBe(true);
    expect(fake.exchanges.at(-1)?.body.toString()).toBe(sentBodies.at(-1));
    const message = await sdk.messages.stream(ASK).finalMessage();
    expect(message.content[0]).toMatchObject({ type: "text", text: "Hello from the fake — ünïcödé ✓ 🚀" });
  });

  it("demands a client key: 401 on every proxy route (Anthropic's shape on /v1/messages, the envelope on /accounts and /limits)", async () => {
    const { server } = await serve();
    for (const [method, path] of [
      ["POST", "/v1/messages"],
      ["GET", "/accounts"],
      ["GET", "/limits?snapshot=true"],
    ] as const) {
      const response = await fetch(server.url(path), { method, ...(method === "POST" ? { body: JSON.stringify(ASK) } : {}) });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject(
        path === "/v1/messages" ? { type: "error", error: { type: "authentication_error" } } : { error: { code: "AUTH_REQUIRED" } },
      );
    }
    expect(fake.exchanges).toHaveLength(0);
  });

  it("fails over on a 429 with reset; every account cooling → 429 with retry-after", async () => {
    const { server, sdk } = await serve();
    fake.script("sk-a", { status: 429, headers: { "retry-after": "90" }, body: "{}" });
    await sdk.messages.create(ASK);
    expect(fake.exchanges.map((exchange) => exchange.credential)).toEqual(["sk-a", "sk-b"]);
    fake.script("sk-b", { status: 429, headers: { "retry-after": "45" }, body: "{}" });
    const response = await fetch(server.url("/v1/messages"), {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY },
      body: JSON.stringify(ASK),
    });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(30);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    const accounts = await (await fetch(server.url("/accounts"), { headers: { "x-api-key": CLIENT_KEY } })).json();
    expect(accounts.data.accounts.map((row: { status: string }) => row.status)).toEqual(["cooling", "cooling"]);
    const text = JSON.stringify(accounts);
    expect(text).not.toContain("sk-a");
    const limits = await (await fetch(server.url("/limits?snapshot=true"), { headers: { authorization: `Bearer ${CLIENT_KEY}` } })).json();
    expect(limits.data.snapshot).toBe(true);
  });

  it("a client leaving mid-stream aborts the upstream request", async () => {
    const { server } = await serve();
    fake.eventGapMs = 200;
    const controller = new AbortController();
    const response = await fetch(server.url("/v1/messages"), {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json" },
      body: JSON.stringify({ ...ASK, stream: true }),
      signal: controller.signal,
    });
    await (response.body as ReadableStream<Uint8Array>).getReader().read();
    controller.abort();
    await expect.poll(() => fake.exchanges.length, { timeout: 10_000 }).toBe(1);
    expect((fake.exchanges[0]?.sent.toString().match(/^event: /gm) ?? []).length).toBeLessThan(9);
    await expect.poll(async () => (await proxy.pool.rows())[0]?.inFlight, { timeout: 10_000 }).toBe(0);
  });
});
