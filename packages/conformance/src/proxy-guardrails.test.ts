import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { type FakeAnthropic, fixedAnswer, startFakeAnthropic } from "@conduit-ai/fakes";
import {
  GovernanceGate,
  MemoryGovernanceStore,
  MemoryUsageSink,
  type UsageEvent,
  createGovernance,
  keyDigest,
  newKeySecret,
} from "@conduit-ai/governance";
import { type GuardrailHit, type GuardrailsConfigInput, createGuardrails } from "@conduit-ai/guardrails";
import { chatCompletionsFor, createProxy, registerProxyRoutes } from "@conduit-ai/proxy";
import { DEFAULT_PRICES } from "@conduit-ai/server-core";
import { createRuntime } from "@conduit-ai/runtime";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_KEY, mintKey } from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// Guardrails on the proxy's surfaces (packages/guardrails): requests blocked (400 in the
// surface's shape) or masked before upstream, streamed answers masked across event boundaries
// or ended with the vendor's error event, read by the official SDKs.
const CLIENT_KEY = "guard-client-key-0123456789";
const SECRET = "AKIAIOSFODNN7EXAMPLE";
const EMAIL = "ada@example.com";
const ANSWER = `key ${SECRET} mail ${EMAIL} ok`;
const MASKED = "key [AWS_ACCESS_KEY] mail [EMAIL] ok";

let fake: FakeAnthropic;
let webhook: Server;
let webhookUrl: string;
const runtime = createRuntime({ env: {} });
beforeAll(async () => {
  fake = await startFakeAnthropic({ anyCredential: true, answer: fixedAnswer(["Hello"]) });
  // A moderation webhook that answers after 300 ms: past a 100 ms timeout.
  webhook = createServer((request, response) => {
    // `/answers` blocks every answer at once; anything else allows, after 300 ms.
    if (request.url === "/answers") return void response.end('{"action":"block","reason":"off-topic answer"}');
    setTimeout(() => response.end('{"action":"allow"}'), 300);
  });
  await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
  webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/moderate`;
});
afterAll(async () => {
  await fake.close();
  await runtime.close();
  webhook.closeAllConnections();
  await new Promise<void>((resolve) => webhook.close(() => resolve()));
});

const maskBoth: GuardrailsConfigInput = {
  rules: [
    { name: "pii", kind: "pii", action: "mask" },
    { name: "secrets", kind: "secrets", action: "mask" },
  ],
  default: ["pii", "secrets"],
};
const blockSecrets: GuardrailsConfigInput = { rules: [{ name: "no-secrets", kind: "secrets", action: "block" }], default: ["no-secrets"] };

/** Governance in memory, each usage event kept for the test. */
function memoryGate() {
  const store = new MemoryGovernanceStore();
  const events: UsageEvent[] = [];
  const gate = new GovernanceGate({ store, usage: new MemoryUsageSink(), prices: DEFAULT_PRICES, onUsage: (event) => events.push(event) });
  return { store, events, gate };
}

forEachAdapter("proxy guardrails", ({ start }) => {
  async function serve(config: GuardrailsConfigInput, gate?: GovernanceGate) {
    const hits: GuardrailHit[] = [];
    const proxy = createProxy(
      {
        enabled: true,
        upstream: { anthropic: fake.url },
        ...(gate ? {} : { clientKeys: [CLIENT_KEY] }),
        accounts: [{ id: "acct", type: "api-key", apiKey: "sk-ant-pool" }],
      },
      {
        chatCompletions: chatCompletionsFor(runtime),
        guardrails: createGuardrails(config, { onHit: (hit) => hits.push(hit) }),
        ...(gate ? { gate } : {}),
      },
    );
    const server = await start({ setup: (adapter) => void registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true }) });
    return {
      server,
      hits,
      openai: new OpenAI({ apiKey: CLIENT_KEY, baseURL: server.url("/v1"), maxRetries: 0, timeout: 20_000 }),
      anthropic: new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url(""), maxRetries: 0, timeout: 20_000 }),
      post: (path: string, body: unknown) =>
        fetch(server.url(path), {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${CLIENT_KEY}`, "anthropic-version": "2023-06-01" },
          body: JSON.stringify(body),
        }),
      close: () => proxy.close(),
    };
  }

  it("blocks a request on every surface with 400 guardrail_violation in its shape, never echoing the secret", async () => {
    const { post, hits, close } = await serve(blockSecrets);
    try {
      const before = fake.requests.length;
      const prompt = `my key is ${SECRET}`;
      const messages = await post("/v1/messages", {
        model: "claude-haiku-4-5",
        max_tokens: 10,
        messages: [{ role: "user", content: prompt }],
      });
      expect(messages.status).toBe(400);
      const anthropicError = await messages.json();
      expect(anthropicError).toEqual({
        type: "error",
        error: { type: "guardrail_violation", message: "Blocked by guardrail `no-secrets` (aws-access-key): the request was not sent." },
      });
      for (const [path, body] of [
        ["/v1/chat/completions", { model: "claude-haiku-4-5", messages: [{ role: "user", content: prompt }] }],
        ["/v1/responses", { model: "claude-haiku-4-5", input: prompt }],
        ["/v1/embeddings", { model: "local", input: [prompt] }],
      ] as const) {
        const response = await post(path, body);
        expect(response.status, path).toBe(400);
        const text = await response.text();
        expect(text).not.toContain(SECRET);
        expect(JSON.parse(text).error, path).toMatchObject({
          code: "guardrail_violation",
          message: expect.stringContaining("`no-secrets` (aws-access-key)"),
        });
      }
      expect(fake.requests.length).toBe(before);
      expect(hits.map((hit) => hit.direction)).toEqual(["request", "request", "request", "request"]);
    } finally {
      await close();
    }
  });

  it("the official SDKs read the block as a 400 with the guardrail's message", async () => {
    const { anthropic, openai, close } = await serve(blockSecrets);
    try {
      const refused = await anthropic.messages
        .create({ model: "claude-haiku-4-5", max_tokens: 10, messages: [{ role: "user", content: SECRET }] })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
      const chat = await openai.chat.completions
        .create({ model: "claude-haiku-4-5", messages: [{ role: "user", content: SECRET }] })
        .catch((error: unknown) => error);
      expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
      expect((chat as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("guardrail_violation");
    } finally {
      await close();
    }
  });

  it("masks a request on every surface before it goes upstream", async () => {
    const { post, hits, close } = await serve(maskBoth);
    try {
      fake.answer = fixedAnswer(["fine"]);
      const before = fake.requests.length;
      const prompt = `write to ${EMAIL} with ${SECRET}`;
      const maskedPrompt = "write to [EMAIL] with [AWS_ACCESS_KEY]";
      await post("/v1/messages", {
        model: "claude-haiku-4-5",
        max_tokens: 10,
        system: `from ${EMAIL}`,
        messages: [{ role: "user", content: prompt }],
      });
      expect(fake.requests.at(-1)!.body).toMatchObject({ system: "from [EMAIL]", messages: [{ content: maskedPrompt }] });
      await post("/v1/chat/completions", { model: "claude-haiku-4-5", messages: [{ role: "user", content: prompt }] });
      expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain(maskedPrompt);
      await post("/v1/responses", { model: "claude-haiku-4-5", input: prompt });
      expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain(maskedPrompt);
      expect(JSON.stringify(fake.requests.slice(before).map((request) => request.body))).not.toContain(SECRET);
      const embedded = await post("/v1/embeddings", { model: "local", input: [prompt] });
      expect(embedded.status).toBe(200);
      expect(hits.filter((hit) => hit.direction === "request").length).toBe(2 + 1 + 2 + 2 + 2);
    } finally {
      await close();
    }
  });

  it("leaves /v1/messages bytes untouched when no guardrail applies", async () => {
    const { server, close } = await serve({ rules: [{ name: "pii", kind: "pii", action: "mask" }], default: [] });
    try {
      fake.answer = fixedAnswer(["fine"]);
      const raw = `{"model":"claude-haiku-4-5",  "max_tokens":10,"messages":[{"role":"user","content":"${EMAIL}"}]}`;
      const response = await fetch(server.url("/v1/messages"), {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": CLIENT_KEY, "anthropic-version": "2023-06-01" },
        body: raw,
      });
      expect(response.status).toBe(200);
      await response.text();
      expect(fake.exchanges.at(-1)!.body.toString("utf8")).toBe(raw);
    } finally {
      await close();
    }
  });

  it("masks a secret and an email split across stream events at every offset, read by the official SDKs", async () => {
    const { anthropic, openai, close } = await serve(maskBoth);
    try {
      for (let offset = 1; offset < ANSWER.length; offset++) {
        fake.answer = fixedAnswer([ANSWER.slice(0, offset), ANSWER.slice(offset)]);
        const stream = anthropic.messages.stream({
          model: "claude-haiku-4-5",
          max_tokens: 50,
          messages: [{ role: "user", content: "Hi" }],
        });
        const message = await stream.finalMessage();
        expect(message.content, `messages, split at ${offset}`).toMatchObject([{ type: "text", text: MASKED }]);
        const chunks = await openai.chat.completions.create({
          model: "claude-haiku-4-5",
          messages: [{ role: "user", content: "Hi" }],
          stream: true,
        });
        let chat = "";
        for await (const chunk of chunks) chat += chunk.choices[0]?.delta.content ?? "";
        expect(chat, `chat, split at ${offset}`).toBe(MASKED);
        const responses = openai.responses.stream({ model: "claude-haiku-4-5", input: "Hi" });
        expect((await responses.finalResponse()).output_text, `responses, split at ${offset}`).toBe(MASKED);
      }
    } finally {
      await close();
    }
  }, 60_000); // three streamed calls per offset of the answer: ~200 calls

  it("masks whole (non-streamed) answers on every surface, and answers a blocked one with 400", async () => {
    const masking = await serve(maskBoth);
    try {
      fake.answer = fixedAnswer([ANSWER]);
      const message = await masking.anthropic.messages.create({
        model: "claude-haiku-4-5",
        max_tokens: 50,
        messages: [{ role: "user", content: "Hi" }],
      });
      expect(message.content).toMatchObject([{ type: "text", text: MASKED }]);
      const completion = await masking.openai.chat.completions.create({
        model: "claude-haiku-4-5",
        messages: [{ role: "user", content: "Hi" }],
      });
      expect(completion.choices[0]?.message.content).toBe(MASKED);
      const response = await masking.openai.responses.create({ model: "claude-haiku-4-5", input: "Hi" });
      expect(response.output_text).toBe(MASKED);
    } finally {
      await masking.close();
    }
    const blocking = await serve({
      rules: [{ name: "no-secrets", kind: "secrets", action: "block", on: "response" }],
      default: ["no-secrets"],
    });
    try {
      fake.answer = fixedAnswer([ANSWER]);
      const refused = await blocking.post("/v1/chat/completions", {
        model: "claude-haiku-4-5",
        messages: [{ role: "user", content: "Hi" }],
      });
      expect(refused.status).toBe(400);
      const text = await refused.text();
      expect(text).not.toContain(SECRET);
      expect(JSON.parse(text).error).toMatchObject({ code: "guardrail_violation" });
    } finally {
      await blocking.close();
    }
  });

  it("ends a blocked stream with the vendor's error event, no part of the secret sent", async () => {
    const { post, anthropic, close } = await serve({
      ...blockSecrets,
      rules: [{ name: "no-secrets", kind: "secrets", action: "block", on: "response" }],
    });
    try {
      fake.answer = fixedAnswer(["here it is: AKIAIOSF", "ODNN7EXAMPLE and more"]);
      const messages = await (
        await post("/v1/messages", { model: "claude-haiku-4-5", max_tokens: 50, stream: true, messages: [{ role: "user", content: "Hi" }] })
      ).text();
      expect(messages).not.toContain("AKIA");
      expect(messages).toMatch(
        /event: error\ndata: {"type":"error","error":{"type":"guardrail_violation","message":"Blocked by guardrail `no-secrets` \(aws-access-key\)[^"]*"}}\n\n$/,
      );
      const sdk = await anthropic.messages
        .stream({ model: "claude-haiku-4-5", max_tokens: 50, messages: [{ role: "user", content: "Hi" }] })
        .finalMessage()
        .catch((error: unknown) => error);
      expect(String(sdk)).toContain("guardrail_violation");
      const chat = await (
        await post("/v1/chat/completions", { model: "claude-haiku-4-5", stream: true, messages: [{ role: "user", content: "Hi" }] })
      ).text();
      expect(chat).not.toContain("AKIA");
      expect(chat).toMatch(/data: {"error":{"message":"Blocked by guardrail[^\n]*"code":"guardrail_violation"}}\n\ndata: \[DONE\]\n\n$/);
      const responses = await (await post("/v1/responses", { model: "claude-haiku-4-5", stream: true, input: "Hi" })).text();
      expect(responses).not.toContain("AKIA");
      expect(responses).toMatch(/event: response\.failed\ndata: {"type":"response\.failed"[^\n]*"error":{"code":"guardrail_violation"/);
    } finally {
      await close();
    }
  });

  it("takes keys' and teams' guardrails from the admin API (a bad name is a 400)", async () => {
    const governance = await createGovernance({ keys: { store: "memory" }, admin: { keys: [ADMIN_KEY] }, prices: DEFAULT_PRICES, env: {} });
    const proxy = createProxy(
      { enabled: true, upstream: { anthropic: fake.url }, accounts: [{ id: "acct", type: "api-key", apiKey: "sk-ant-pool" }] },
      {
        gate: governance.gate,
        chatCompletions: chatCompletionsFor(runtime),
        guardrails: createGuardrails({ rules: [{ name: "no-secrets", kind: "secrets", on: "request" }], default: [] }),
      },
    );
    try {
      const server = await start({
        config: { rateLimit: { enabled: false } },
        setup: (adapter) => {
          void registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true });
          governance.install(adapter);
        },
      });
      const guarded = await mintKey(
        server.url(""),
        { name: "guarded", team: "red" },
        { id: "red", name: "Red", guardrails: ["no-secrets"] },
      );
      const bad = await fetch(server.url("/admin/keys"), {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "bad", guardrails: ["no secrets"] }),
      });
      expect(bad.status).toBe(400);
      const refused = await fetch(server.url("/v1/messages"), {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": guarded, "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 10, messages: [{ role: "user", content: SECRET }] }),
      });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error.type).toBe("guardrail_violation");
    } finally {
      await proxy.close();
      await governance.close();
    }
  });

  it("asks a response webhook once a streamed answer is complete; its block ends the stream with the error event", async () => {
    const answers = webhookUrl.replace("/moderate", "/answers");
    const { post, close } = await serve({
      rules: [{ name: "answer-check", kind: "webhook", url: answers, on: "response" }],
      default: ["answer-check"],
    });
    try {
      fake.answer = fixedAnswer(["a fine", " answer"]);
      const messages = await (
        await post("/v1/messages", { model: "claude-haiku-4-5", max_tokens: 50, stream: true, messages: [{ role: "user", content: "Hi" }] })
      ).text();
      expect(messages).toMatch(
        /event: error\ndata: {"type":"error","error":{"type":"guardrail_violation","message":"Blocked by guardrail `answer-check`: off-topic answer[^"]*"}}\n\n$/,
      );
      expect(messages).not.toContain("message_stop");
    } finally {
      await close();
    }
  });

  it("a webhook that times out blocks (fail closed) unless failOpen", async () => {
    const rule = { name: "moderation", kind: "webhook" as const, url: webhookUrl, timeoutMs: 100, on: "request" as const };
    const closed = await serve({ rules: [rule], default: ["moderation"] });
    try {
      const refused = await closed.post("/v1/chat/completions", { model: "claude-haiku-4-5", messages: [{ role: "user", content: "Hi" }] });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toMatchObject({ code: "guardrail_violation", message: expect.stringContaining("`moderation`") });
    } finally {
      await closed.close();
    }
    const open = await serve({ rules: [{ ...rule, failOpen: true }], default: ["moderation"] });
    try {
      fake.answer = fixedAnswer(["fine"]);
      const answered = await open.post("/v1/chat/completions", { model: "claude-haiku-4-5", messages: [{ role: "user", content: "Hi" }] });
      expect(answered.status).toBe(200);
      expect(open.hits).toEqual([
        { guardrail: "moderation", kind: "webhook", action: "log", direction: "request", entity: "webhook-unavailable" },
      ]);
    } finally {
      await open.close();
    }
  });

  it("counts a guarded stream's tokens as upstream reported them, masks and all (passthrough and routed model)", async () => {
    const { store, events, gate } = memoryGate();
    const secret = newKeySecret("sk-conduit-");
    await store.createKey(
      { id: "streamer", name: "streamer", hint: "x", createdAt: new Date().toISOString() },
      keyDigest(secret, undefined),
    );
    const { server, close } = await serve(maskBoth, gate);
    try {
      fake.answer = fixedAnswer(["key AKIAIOSF", `ODNN7EXAMPLE mail ${EMAIL.slice(0, 5)}`, `${EMAIL.slice(5)} ok`], {
        input: 23,
        output: 17,
        cacheRead: 4,
      });
      // With a model the call is routed (the pool's target); without one it is relayed untouched before the guard.
      for (const body of [
        { model: "claude-haiku-4-5", max_tokens: 50, stream: true, messages: [{ role: "user", content: "Hi" }] },
        { max_tokens: 50, stream: true, messages: [{ role: "user", content: "Hi" }] },
      ]) {
        events.length = 0;
        const response = await fetch(server.url("/v1/messages"), {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${secret}`, "anthropic-version": "2023-06-01" },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        expect(response.status).toBe(200);
        expect(text).not.toContain("AKIA");
        expect(text).toContain("event: message_stop");
        await expect.poll(() => events.length).toBe(1);
        expect(events[0]).toMatchObject({ key: "streamer", inputTokens: 23, outputTokens: 17, cacheReadTokens: 4 });
      }
    } finally {
      await close();
    }
  });

  it("applies a team's and a key's lists from governance: added to the defaults, `!name` removing one", async () => {
    const { store, events, gate } = memoryGate();
    await store.createTeam({ id: "red", name: "Red", createdAt: new Date().toISOString(), guardrails: ["no-secrets"] });
    const keyFor = async (id: string, guardrails?: string[]) => {
      const secret = newKeySecret("sk-conduit-");
      await store.createKey(
        { id, name: id, team: "red", hint: "x", createdAt: new Date().toISOString(), ...(guardrails ? { guardrails } : {}) },
        keyDigest(secret, undefined),
      );
      return secret;
    };
    const teamOnly = await keyFor("team-only");
    const optedOut = await keyFor("opted-out", ["!no-secrets", "pii"]);
    const { server, close } = await serve(
      {
        rules: [
          { name: "pii", kind: "pii", action: "mask", on: "request" },
          { name: "no-secrets", kind: "secrets", action: "block", on: "request" },
        ],
        default: [],
      },
      gate,
    );
    try {
      fake.answer = fixedAnswer(["fine"]);
      const ask = (key: string) =>
        fetch(server.url("/v1/chat/completions"), {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
          body: JSON.stringify({ model: "claude-haiku-4-5", messages: [{ role: "user", content: `${SECRET} ${EMAIL}` }] }),
        });
      const blocked = await ask(teamOnly);
      expect(blocked.status).toBe(400);
      expect((await blocked.json()).error.code).toBe("guardrail_violation");
      const passed = await ask(optedOut);
      expect(passed.status).toBe(200);
      expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain(`${SECRET} [EMAIL]`);
      // The usage event names the hit (never the text).
      await expect.poll(() => events.length).toBe(1);
      expect(events[0]).toMatchObject({
        key: "opted-out",
        guardrails: [{ guardrail: "pii", action: "mask", direction: "request", entity: "email" }],
      });
    } finally {
      await close();
    }
  });
});
