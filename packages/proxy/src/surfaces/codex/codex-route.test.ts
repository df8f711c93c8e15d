import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdapter } from "@conduit-ai/adapter-hono";
import { type BaseServerAdapter, createAllRoutes } from "@conduit-ai/server-core";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClientCheck } from "../../admission/client-auth.js";
import { chatCompletionsFor } from "../openai-surfaces.js";
import { type ConduitProxy, createProxy } from "../../proxy.js";
import { codexStream, startFakeCodex } from "@conduit-ai/fakes";
import { createCodexRoute } from "./codex-route.js";
import { createCodexSender } from "../../targets/codex/codex-relay.js";

const CLIENT_KEY = "client-key-0123456789";
let fake: Awaited<ReturnType<typeof startFakeCodex>>;
let proxy: ConduitProxy;
let adapter: BaseServerAdapter<unknown>;
let baseUrl: string;

beforeEach(async () => {
  fake = await startFakeCodex();
  proxy = createProxy({
    enabled: true,
    upstream: { codex: fake.url },
    clientKeys: [CLIENT_KEY],
    retryBaseMs: 1,
    accounts: [
      { id: "codex-a", vendor: "codex", type: "api-key", apiKey: "token-a", accountId: "acct-a", priority: 0 },
      { id: "codex-b", vendor: "codex", type: "api-key", apiKey: "token-b", accountId: "acct-b", priority: 1 },
      { id: "claude-1", vendor: "anthropic", type: "api-key", apiKey: "sk-ant" },
    ],
  });
  adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1", logging: { enabled: false } });
  adapter.registerRoute(
    createCodexRoute({
      sendCodex: createCodexSender({ pool: proxy.pool, config: proxy.config }),
      isClientAllowed: createClientCheck(proxy.config.clientKeys),
    }),
  );
  await adapter.start();
  baseUrl = `http://127.0.0.1:${adapter.address()?.port}`;
});
afterEach(async () => {
  await adapter.stop();
  await proxy.close();
  await fake.close();
});

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/backend-api/codex/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${CLIENT_KEY}`, ...headers },
    body,
  });

const statusOf = async (id: string) => (await proxy.pool.rows()).find((row) => row.id === id)!;

describe("POST /backend-api/codex/responses", () => {
  it("streams the upstream bytes unchanged with the account's token and account id", async () => {
    const body = '{"model":"gpt-5-codex","stream":true,  "input":[]}';
    const response = await post(body, { session_id: "s1", originator: "codex_cli_rs" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await response.text()).toBe(codexStream());
    const sent = fake.requests.at(-1)!;
    expect(sent.raw.toString()).toBe(body);
    expect(sent.headers.authorization).toBe("Bearer token-a");
    expect(sent.headers["chatgpt-account-id"]).toBe("acct-a");
    expect(sent.headers.originator).toBe("codex_cli_rs");
    expect(JSON.stringify(sent.headers)).not.toContain(CLIENT_KEY);
  });

  it("works with the official openai client's Responses stream", async () => {
    const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${baseUrl}/backend-api/codex`, maxRetries: 0 });
    const stream = await client.responses.create({ model: "gpt-5-codex", input: "hi", stream: true });
    const types: string[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    expect(types).toEqual(["response.created", "response.output_text.delta", "response.completed"]);
    expect(text).toBe("Hello from codex — héllo ✓");
  });

  it("records usage from response.completed for the account", async () => {
    await (await post('{"model":"gpt-5-codex"}')).text();
    await expect
      .poll(async () => (await statusOf("codex-a")).usage.byModel["gpt-5-codex"])
      .toMatchObject({ inputTokens: 30, outputTokens: 7, cacheReadTokens: 20 });
  });

  it("cools an account on usage_limit_reached until its reset and serves from the next one", async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 7200;
    fake.reply({
      kind: "json",
      status: 429,
      body: { error: { type: "usage_limit_reached", message: "The usage limit has been reached", plan_type: "plus", resets_at: resetsAt } },
    });
    const response = await post('{"model":"gpt-5-codex"}');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(codexStream());
    expect(fake.requests.map((request) => request.headers["chatgpt-account-id"])).toEqual(["acct-a", "acct-b"]);
    const cooled = await statusOf("codex-a");
    expect(cooled.status).toBe("cooling");
    expect(cooled.cooldownUntil).toBe(new Date(resetsAt * 1000).toISOString());
    await (await post('{"model":"gpt-5-codex"}')).text();
    expect(fake.requests.at(-1)!.headers["chatgpt-account-id"]).toBe("acct-b");
  });

  it("takes the reset from resets_in_seconds or the x-codex reset headers", async () => {
    fake.reply(
      { kind: "json", status: 429, body: { error: { type: "usage_limit_reached", message: "limit", resets_in_seconds: 600 } } },
      {
        kind: "json",
        status: 429,
        headers: {
          "x-codex-primary-used-percent": "100",
          "x-codex-primary-reset-after-seconds": "900",
          "x-codex-secondary-used-percent": "40",
          "x-codex-secondary-reset-after-seconds": "90000",
        },
        body: { error: { type: "usage_limit_reached", message: "limit" } },
      },
    );
    const before = Date.now();
    const response = await post('{"model":"gpt-5-codex"}');
    expect(response.status).toBe(429);
    const a = Date.parse((await statusOf("codex-a")).cooldownUntil!) - before;
    const b = Date.parse((await statusOf("codex-b")).cooldownUntil!) - before;
    expect(a).toBeGreaterThan(590_000);
    expect(a).toBeLessThan(700_000);
    expect(b).toBeGreaterThan(890_000);
    expect(b).toBeLessThan(1_000_000);
  });

  it("answers usage_limit_reached with retry-after when every codex account is cooling", async () => {
    await proxy.pool.cooldown("codex-a", Date.now() + 120_000, "test");
    await proxy.pool.cooldown("codex-b", Date.now() + 60_000, "test");
    const response = await post('{"model":"gpt-5-codex"}');
    expect(response.status).toBe(429);
    const seconds = Number(response.headers.get("retry-after"));
    expect(seconds).toBeGreaterThan(50);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(((await response.json()) as { error: { type: string; resets_in_seconds: number } }).error).toMatchObject({
      type: "usage_limit_reached",
      resets_in_seconds: seconds,
    });
    expect(fake.requests).toHaveLength(0);
  });

  it("passes a 429 that is not a usage limit and names no reset through unchanged", async () => {
    fake.reply({ kind: "json", status: 429, body: { error: { type: "rate_limited", message: "slow down" } } });
    const response = await post('{"model":"gpt-5-codex"}');
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({ error: { type: "rate_limited", message: "slow down" } });
    expect((await statusOf("codex-a")).status).toBe("active");
  });

  it("disables an account the upstream refuses and moves on", async () => {
    fake.reply({ kind: "json", status: 401, body: { error: { message: "bad token" } } });
    expect((await post('{"model":"gpt-5-codex"}')).status).toBe(200);
    expect((await statusOf("codex-a")).status).toBe("disabled");
  });

  it("refreshes an expired OAuth codex token before sending and once more after a 401", async () => {
    const grants: string[] = [];
    const tokens = createServer((request, response) => {
      let body = "";
      request
        .on("data", (chunk) => (body += chunk))
        .on("end", () => {
          grants.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
          response
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ access_token: `fresh-${grants.length}`, refresh_token: `refresh-${grants.length}`, expires_in: 3600 }));
        });
    });
    await new Promise<void>((resolve) => tokens.listen(0, "127.0.0.1", resolve));
    const tokenUrl = `http://127.0.0.1:${(tokens.address() as AddressInfo).port}/oauth/token`;
    const oauthProxy = createProxy({
      enabled: true,
      upstream: { codex: fake.url },
      clientKeys: [CLIENT_KEY],
      accounts: [
        {
          id: "codex-oauth",
          vendor: "codex",
          type: "oauth",
          accessToken: "stale",
          refreshToken: "refresh-0",
          expiresAt: Date.now() - 1000,
          tokenUrl,
          accountId: "acct-o",
        },
      ],
    });
    const sendCodex = createCodexSender({ pool: oauthProxy.pool, config: oauthProxy.config });
    try {
      const first = await sendCodex(new TextEncoder().encode("{}"), { headers: {}, signal: AbortSignal.timeout(10_000) });
      await first.text();
      expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer fresh-1");
      fake.reply({ kind: "json", status: 401, body: { error: { message: "token revoked" } } });
      const second = await sendCodex(new TextEncoder().encode("{}"), { headers: {}, signal: AbortSignal.timeout(10_000) });
      expect(second.status).toBe(200);
      await second.text();
      expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer fresh-2");
      expect(grants).toEqual(["refresh-0", "refresh-1"]);
    } finally {
      await oauthProxy.close();
      await new Promise((resolve) => tokens.close(resolve));
    }
  });

  it("refuses a caller without a client key", async () => {
    const response = await post("{}", { authorization: "Bearer wrong" });
    expect(response.status).toBe(401);
    expect(fake.requests).toHaveLength(0);
  });

  it("is never mounted by createAllRoutes, whatever the proxy flags", () => {
    const withChat = createProxy({ enabled: true, clientKeys: [CLIENT_KEY] }, { chatCompletions: chatCompletionsFor() });
    for (const options of [{ proxy }, { proxy: withChat }, { claudeProxy: withChat }, { openaiProxy: withChat }]) {
      const paths = createAllRoutes(undefined, "/api", options).flatMap((group) =>
        group.routes.map((route) => `${group.prefix}${route.path}`),
      );
      expect(paths.length).toBeGreaterThan(0);
      expect(paths.some((path) => path.includes("codex"))).toBe(false);
    }
    void withChat.close();
  });
});
