import { type FakeOpenAI, startFakeOpenAI } from "@conduit-ai/fakes";
import { createRuntime } from "@conduit-ai/runtime";
import type { Gate, GateUsage } from "@conduit-ai/server-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ProxyServer, startProxyServer } from "../testing/proxy-server.js";
import { chatCompletionsFor } from "./openai-surfaces.js";

// A runtime-served call settles once on every surface, through the one settlement hook: with the
// tokens its provider reported, or — a stream the client left before the provider's finish — with
// the reservation (the estimate and the whole output cap).
const KEY = "virtual-key-0123456789";
const MODEL = "openai/gpt-4o-mini";

let provider: FakeOpenAI;
let runtime: ReturnType<typeof createRuntime>;
let server: ProxyServer;
const settled: GateUsage[] = [];

beforeAll(async () => {
  provider = await startFakeOpenAI();
  runtime = createRuntime({ env: {}, openai: { baseURL: provider.baseURL, apiKey: "test-key", models: ["gpt-4o-mini"] }, maxRetries: 0 });
  const gate: Gate = {
    admit: async () => ({
      identity: { keyId: "k", name: "k" },
      settle: async (usage) => void settled.push(usage),
      release: async () => {},
    }),
  };
  server = await startProxyServer({}, { chatCompletions: chatCompletionsFor(runtime), runtime, gate });
});
afterAll(async () => {
  await server.stop();
  await runtime.close();
  await provider.close();
});
beforeEach(() => {
  settled.length = 0;
  provider.answer = () => ({ text: ["Hello ", "there"], usage: { input: 5, output: 2 } });
});

const post = (path: string, body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

/** Reads a stream until its first text arrived, then leaves (the provider is held mid-answer). */
async function leaveAfterFirstText(path: string, body: Record<string, unknown>): Promise<void> {
  const controller = new AbortController();
  const response = await post(path, body, controller.signal);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let seen = "";
  while (!seen.includes("Hello")) seen += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
}

describe("a runtime answer settles once", () => {
  it("with the provider's tokens, JSON and streamed, on chat completions and responses", async () => {
    const calls = [
      ["/v1/chat/completions", { model: MODEL, messages: [{ role: "user", content: "hi" }] }],
      ["/v1/chat/completions", { model: MODEL, stream: true, messages: [{ role: "user", content: "hi" }] }],
      ["/v1/responses", { model: MODEL, input: "hi" }],
      ["/v1/responses", { model: MODEL, input: "hi", stream: true }],
    ] as const;
    for (const [index, [path, body]] of calls.entries()) {
      await (await post(path, body)).text();
      await expect.poll(() => settled.length).toBe(index + 1);
      expect(settled[index]).toMatchObject({
        model: "gpt-4o-mini",
        target: `runtime/${MODEL}`,
        inputTokens: 5,
        outputTokens: 2,
        status: 200,
      });
    }
  });

  it("with the reservation when the client leaves a stream before the provider finished", async () => {
    provider.answer = () => ({ text: ["Hello ", "there"], usage: { input: 5, output: 2 }, hold: true });
    const calls = [
      ["/v1/responses", { model: MODEL, input: "hi", stream: true, max_output_tokens: 300 }],
      ["/v1/chat/completions", { model: MODEL, stream: true, max_tokens: 300, messages: [{ role: "user", content: "hi" }] }],
    ] as const;
    for (const [index, [path, body]] of calls.entries()) {
      await leaveAfterFirstText(path, body);
      // The provider is still holding its answer: the client's leaving ends the call.
      await expect.poll(() => settled.length).toBe(index + 1);
      expect(settled[index]).toMatchObject({ model: MODEL, target: `runtime/${MODEL}`, outputTokens: 300, status: 200 });
      expect(settled[index]!.inputTokens).toBeGreaterThan(0);
    }
    provider.release();
  });
});
