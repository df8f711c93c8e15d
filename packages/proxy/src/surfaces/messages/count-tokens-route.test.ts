import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "../../testing/index.js";
import { countMessagesTokens } from "./token-estimate.js";

let fake: FakeAnthropic;
let server: ProxyServer;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  fake.credentials.add("sk-ant-a");
  server = await startProxyServer({ upstream: { anthropic: fake.url }, accounts: [{ id: "a", type: "api-key", apiKey: "sk-ant-a" }] });
});
afterEach(async () => {
  await server.stop();
  await fake.close();
});

const client = () => new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url, maxRetries: 0 });

describe("POST /v1/messages/count_tokens", () => {
  it("relays Claude models through the pool with the account's key, the body unchanged and ?beta=true kept", async () => {
    const params = { model: "claude-sonnet-4-5", messages: [{ role: "user" as const, content: "How many tokens is this?" }] };
    const counted = await client().messages.countTokens(params);
    const exchange = fake.exchanges.at(-1)!;
    expect(exchange.url).toBe("/v1/messages/count_tokens");
    expect(exchange.credential).toBe("sk-ant-a");
    expect(JSON.parse(exchange.body.toString())).toEqual(params);
    expect(counted.input_tokens).toBe(Math.ceil(exchange.body.byteLength / 4));
    // Claude Code calls the beta path, `?beta=true`, with its beta headers.
    const beta = await fetch(`${server.url}/v1/messages/count_tokens?beta=true`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json", "anthropic-beta": "token-counting-2024-11-01" },
      body: JSON.stringify(params),
    });
    expect(beta.status).toBe(200);
    expect(fake.exchanges.at(-1)!.url).toBe("/v1/messages/count_tokens?beta=true");
    expect(fake.exchanges.at(-1)!.headers["anthropic-beta"]).toBe("token-counting-2024-11-01");
  });

  it("estimates other models with a real tokenizer, marked as an estimate", async () => {
    const response = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "local", system: "Be brief.", messages: [{ role: "user", content: "Hello, world!" }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-conduit-token-count")).toBe("estimate");
    // o200k_base: "Be brief." is 3 tokens, "Hello, world!" 4, plus 3 of framing for the one message.
    expect(await response.json()).toEqual({ input_tokens: 10 });
    expect(fake.exchanges).toHaveLength(0);
  });

  it("counts tool definitions and tool blocks", () => {
    const bare = countMessagesTokens({ messages: [{ content: "hi" }] });
    const withTools = countMessagesTokens({
      messages: [{ content: [{ type: "tool_use", name: "get_weather", input: { city: "Paris" } }] }],
      tools: [{ name: "get_weather", input_schema: { type: "object" } }],
    });
    expect(withTools).toBeGreaterThan(bare + 5);
  });

  it("refuses a wrong client key and a body without messages in Anthropic's shape", async () => {
    const stranger = new Anthropic({ apiKey: "wrong-0123456789abcdef", baseURL: server.url, maxRetries: 0 });
    const refused = await stranger.messages.countTokens({ model: "claude-sonnet-4-5", messages: [] }).catch((error) => error);
    expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
    const bad = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "x-api-key": CLIENT_KEY, "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-sonnet-4-5" }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
  });
});
