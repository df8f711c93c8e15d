import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AccountRow } from "../../index.js";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "../../testing/index.js";

let fake: FakeAnthropic;
let server: ProxyServer;
let sentBodies: string[];

function client(options: { apiKey?: string | null; authToken?: string } = {}): Anthropic {
  return new Anthropic({
    apiKey: options.apiKey === undefined ? CLIENT_KEY : options.apiKey,
    ...(options.authToken ? { authToken: options.authToken } : {}),
    baseURL: server.url,
    maxRetries: 0,
    fetch: (async (url: string, init: RequestInit) => {
      if (typeof init.body === "string") sentBodies.push(init.body);
      return fetch(url, init);
    }) as typeof fetch,
  });
}

const TOOLS = [
  {
    name: "get_weather",
    description: "Weather of a city",
    input_schema: { type: "object" as const, properties: { city: { type: "string" } } },
  },
];

beforeEach(async () => {
  sentBodies = [];
  fake = await startFakeAnthropic();
  fake.credentials.add("sk-ant-a");
  server = await startProxyServer({ upstream: { anthropic: fake.url }, accounts: [{ id: "a", type: "api-key", apiKey: "sk-ant-a" }] });
});

afterEach(async () => {
  await server.stop();
  await fake.close();
});

describe("POST /v1/messages passthrough (official SDK)", () => {
  it("forwards the request bytes and returns the JSON answer byte for byte", async () => {
    const { data, response } = await client()
      .messages.create({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "Hi ✓ \u2028" }], tools: TOOLS })
      .withResponse();
    expect(data.content[0]?.type).toBe("tool_use");
    const exchange = fake.exchanges.at(-1);
    expect(exchange?.credential).toBe("sk-ant-a");
    expect(exchange?.body.toString()).toBe(sentBodies.at(-1));
    expect(exchange?.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(response.headers.get("anthropic-ratelimit-requests-remaining")).toBe("999");
    // Raw bytes through a second call.
    const raw = await client()
      .messages.create({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "again" }] })
      .asResponse();
    expect(Buffer.from(await raw.arrayBuffer()).equals(fake.exchanges.at(-1)?.sent as Buffer)).toBe(true);
  });

  it("a chunked JSON answer leaves whole with its length; one over 1 MiB is streamed on, byte for byte", async () => {
    const small = JSON.stringify({
      type: "message",
      id: "msg_1",
      model: "claude-sonnet-4-5",
      content: [],
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    const large = JSON.stringify({
      type: "message",
      id: "msg_2",
      padding: "x".repeat(1_500_000),
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    // The fake writes its head first, so both answers reach the proxy chunked, without a length.
    fake.script("sk-ant-a", { status: 200, body: small }, { status: 200, body: large });
    const call = () =>
      fetch(`${server.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
      });
    const first = await call();
    expect(first.headers.get("content-length")).toBe(String(Buffer.byteLength(small)));
    expect(await first.text()).toBe(small);
    const second = await call();
    expect(second.headers.get("content-length")).toBeNull();
    expect(await second.text()).toBe(large);
  });

  it("pipes a thinking + tool stream unchanged, and the SDK's stream helper reads it", async () => {
    const raw = await client()
      .messages.create({
        model: "claude-sonnet-4-5",
        max_tokens: 2048,
        stream: true,
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools: TOOLS,
        messages: [{ role: "user", content: "weather?" }],
      })
      .asResponse();
    expect(raw.headers.get("content-type")).toContain("text/event-stream");
    const bytes = Buffer.from(await raw.arrayBuffer());
    expect(bytes.equals(fake.exchanges.at(-1)?.sent as Buffer)).toBe(true);
    expect(fake.exchanges.at(-1)?.body.toString()).toBe(sentBodies.at(-1));

    const stream = client().messages.stream({
      model: "claude-sonnet-4-5",
      max_tokens: 2048,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "think" }],
    });
    const message = await stream.finalMessage();
    const thinking = message.content.find((block) => block.type === "thinking");
    expect(thinking?.type === "thinking" && thinking.signature).toBe("EqQBCkYIBxgCKkBsig+/=\u00e9");
    expect(message.content.find((block) => block.type === "text")).toMatchObject({ text: "Hello from the fake — ünïcödé ✓ 🚀" });
  });

  it("forwards the query string (?beta=true) and the client's beta header, never its key", async () => {
    await client().beta.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 8,
      messages: [{ role: "user", content: "x" }],
      betas: ["context-1m-2025-08-07"],
    });
    expect(fake.exchanges.at(-1)?.headers["anthropic-beta"]).toBe("context-1m-2025-08-07");
    // Claude Code's form: the query string reaches upstream as sent.
    await fetch(`${server.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: {
        "x-api-key": CLIENT_KEY,
        "content-type": "application/json",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "context-1m-2025-08-07",
      },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content: "x" }] }),
    });
    const exchange = fake.exchanges.at(-1);
    expect(exchange?.url).toBe("/v1/messages?beta=true");
    expect(exchange?.headers["anthropic-beta"]).toBe("context-1m-2025-08-07");
    expect(JSON.stringify(exchange?.headers)).not.toContain(CLIENT_KEY);
  });

  it("refuses a client without a key (401 in Anthropic's shape) and accepts Bearer", async () => {
    await expect(
      client({ apiKey: "wrong-key-0000000000000" }).messages.create({
        model: "m",
        max_tokens: 1,
        messages: [{ role: "user", content: "x" }],
      }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    const anonymous = await fetch(`${server.url}/v1/messages`, { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    const bearer = await client({ apiKey: null, authToken: CLIENT_KEY }).messages.create({
      model: "m",
      max_tokens: 1,
      messages: [{ role: "user", content: "x" }],
    });
    expect(bearer.type).toBe("message");
    expect((await fetch(`${server.url}/accounts`)).status).toBe(401);
    expect((await fetch(`${server.url}/limits?snapshot=true`)).status).toBe(401);
  });

  it("aborts the upstream stream when the client disconnects", async () => {
    fake.eventGapMs = 200;
    const controller = new AbortController();
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 8, stream: true, messages: [{ role: "user", content: "x" }] }),
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    // The fake records a stream once it stopped writing: cut short, not all 9 events.
    await expect.poll(() => fake.exchanges.length, { timeout: 10_000 }).toBe(1);
    const events = (fake.exchanges[0]?.sent.toString().match(/^event: /gm) ?? []).length;
    expect(events).toBeLessThan(9);
    await expect.poll(async () => (await server.proxy.pool.rows())[0]?.inFlight, { timeout: 10_000 }).toBe(0);
  });

  it("counts tokens and cost per account and model, streams included; /accounts shows no secret", async () => {
    await client().messages.create({ model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content: "x" }] });
    const stream = client().messages.stream({ model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content: "y" }] });
    await stream.finalMessage();
    const response = await fetch(`${server.url}/accounts`, { headers: { "x-api-key": CLIENT_KEY } });
    const text = await response.text();
    expect(text).not.toContain("sk-ant-a");
    const row = (JSON.parse(text) as { data: { accounts: AccountRow[] } }).data.accounts[0];
    expect(row).toMatchObject({ id: "a", type: "api-key", status: "active" });
    // Each answer: input 12, output 7, cache read 5, cache write 3.
    expect(row?.usage.totals).toMatchObject({
      requests: 2,
      inputTokens: 24,
      outputTokens: 14,
      cacheReadTokens: 10,
      cacheCreationTokens: 6,
    });
    expect(row?.usage.byModel["claude-sonnet-4-5"]?.cost).toBeCloseTo((24 * 3 + 14 * 15 + 10 * 0.3 + 6 * 3.75) / 1e6, 12);
  });

  it("GET /limits reads quota headers live, ?snapshot=true from the store", async () => {
    const snapshot = await (await fetch(`${server.url}/limits?snapshot=true`, { headers: { "x-api-key": CLIENT_KEY } })).json();
    expect(snapshot.data.accounts[0].quota).toBeNull();
    expect(fake.exchanges).toHaveLength(0);
    const live = await (await fetch(`${server.url}/limits`, { headers: { authorization: `Bearer ${CLIENT_KEY}` } })).json();
    expect(live.data.accounts[0].quota.limits["unified-5h"]).toEqual({ utilization: "0.25", reset: expect.any(String) });
    expect(live.data.accounts[0].quota.limits.requests.remaining).toBe("999");
    expect(fake.exchanges).toHaveLength(1);
  });
});
