import Anthropic from "@anthropic-ai/sdk";
import { createAdapter } from "@conduit-ai/adapter-hono";
import { createRuntime } from "@conduit-ai/runtime";
import type { BaseServerAdapter } from "@conduit-ai/server-core";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatCompletionsFor } from "./openai-surfaces.js";
import { createProxy, registerProxyRoutes } from "../proxy.js";
import { CLIENT_KEY } from "../testing/proxy-server.js";

// `/v1/models` and `/v1/embeddings` as mounted by createProxy's chatCompletions option, driven by
// the official `openai` and `@anthropic-ai/sdk` clients.
let adapter: BaseServerAdapter<unknown>;
let runtime: ReturnType<typeof createRuntime>;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  runtime = createRuntime({ env: {} });
  // An Anthropic account (never called here): the Claude models are listed only when the pool can serve them.
  const accounts = [{ id: "team", type: "api-key" as const, apiKey: "sk-ant-never-called" }];
  const proxy = createProxy({ enabled: true, clientKeys: [CLIENT_KEY], accounts }, { chatCompletions: chatCompletionsFor(runtime) });
  adapter = createAdapter(runtime, { port: 0, host: "127.0.0.1", logging: { enabled: false } });
  registerProxyRoutes(adapter, proxy, { messages: true, chatCompletions: true });
  await adapter.start();
  const url = `http://127.0.0.1:${adapter.address()?.port}`;
  openai = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: CLIENT_KEY, baseURL: url, maxRetries: 0 });
});
afterAll(async () => {
  await adapter.stop();
  await runtime.close();
});

describe("GET /v1/models", () => {
  it("lists Claude models, the runtime's models and bare provider names in OpenAI's shape", async () => {
    const ids: string[] = [];
    for await (const model of openai.models.list()) {
      expect(model.object).toBe("model");
      ids.push(model.id);
    }
    expect(ids).toContain("claude-sonnet-4-5");
    expect(ids).toContain("local");
    expect(ids.some((id) => id.startsWith("local/"))).toBe(true);
    expect((await openai.models.retrieve("claude-sonnet-4-5")).owned_by).toBe("anthropic");
    const missing = await openai.models.retrieve("nope").catch((error) => error);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.error).toMatchObject({ code: "model_not_found" });
  });

  it("answers Anthropic's list shape when the request carries anthropic-version", async () => {
    const page = await anthropic.models.list();
    expect(page.data[0]).toMatchObject({ type: "model", id: "claude-opus-4-5", display_name: "Claude Opus 4.5" });
    expect(page.has_more).toBe(false);
    const one = await anthropic.models.retrieve("claude-haiku-4-5");
    expect(one.created_at).toBe("2025-10-15T00:00:00Z".replace("Z", ".000Z"));
    const missing = await anthropic.models.retrieve("nope").catch((error) => error);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it("refuses a wrong client key in the caller's shape", async () => {
    const stranger = new OpenAI({ apiKey: "wrong-key-0123456789", baseURL: openai.baseURL, maxRetries: 0 });
    expect(await stranger.models.list().catch((error) => error)).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe("limits that suit a proxy", () => {
  it("leaves the server's per-address limit (100 per 15 minutes) to the per-credential one on every OpenAI surface", async () => {
    // The server runs its default limiter; an agent session makes far more than 100 calls from one address.
    for (let turn = 0; turn < 120; turn++) {
      const response = await openai.responses.create({ model: "local", input: `turn ${turn}` });
      expect(response.status).toBe("completed");
    }
    for (let call = 0; call < 5; call++) await openai.models.list();
    expect((await openai.embeddings.create({ model: "local", input: "x" })).data).toHaveLength(1);
  });
});

describe("POST /v1/embeddings", () => {
  it("embeds a string and an array with the runtime, float and base64", async () => {
    const one = await openai.embeddings.create({ model: "local", input: "hello world" });
    expect(one.data).toHaveLength(1);
    const dimension = one.data[0]!.embedding.length;
    expect(dimension).toBeGreaterThan(0);
    expect(one.usage.prompt_tokens).toBeGreaterThan(0);
    const many = await openai.embeddings.create({ model: "local", input: ["hello world", "goodbye"], encoding_format: "float" });
    expect(many.data.map((item) => item.index)).toEqual([0, 1]);
    // The SDK asks for base64 by default and decodes the float32 bytes: the same vector as `float`, to float32 precision.
    for (const [index, value] of many.data[0]!.embedding.entries()) expect(one.data[0]!.embedding[index]).toBeCloseTo(value, 6);
    expect(many.data[1]!.embedding).not.toEqual(many.data[0]!.embedding);
  });

  it("refuses dimensions the model cannot give and unknown models, naming the parameter", async () => {
    const wrong = await openai.embeddings.create({ model: "local", input: "x", dimensions: 3 }).catch((error) => error);
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError);
    expect(wrong.error).toMatchObject({ param: "dimensions" });
    const unknown = await openai.embeddings.create({ model: "nope", input: "x" }).catch((error) => error);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
