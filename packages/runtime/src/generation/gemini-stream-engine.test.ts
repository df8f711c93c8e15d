import type { ServerResponse } from "node:http";
import type { KeyOutcome, KeySource } from "@conduit-ai/server-core";
import {
  type FakeServer,
  type RecordedRequest,
  sendJson,
  startEventStream,
  startFakeGemini,
  startFakeServer,
  VENDOR_KEY,
} from "@conduit-ai/fakes";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { configureProvider } from "../providers/configured-provider.js";
import type { ConfiguredProvider } from "../providers/provider-registry.js";
import { streamWithModel } from "./ai-sdk-model-stream.js";
import { streamGemini } from "./gemini-stream-engine.js";
import type { GenerationPart, GenerationPlan } from "./generation-part.js";

/** A `google` provider on `baseURL`; its keys from `keys` when given (a pool's seam). */
function googleProvider(baseURL: string, keys?: KeySource): ConfiguredProvider {
  return configureProvider(
    { name: "gemini", type: "google", settings: { apiKeys: keys ? ["cold", "warm"] : [VENDOR_KEY], baseURL } },
    { environment: {}, warn: () => {}, ...(keys ? { keySources: () => keys } : {}) },
  );
}

function planOf(provider: ConfiguredProvider, overrides: Partial<GenerationPlan> = {}): GenerationPlan {
  return {
    text: "hi",
    history: [],
    provider,
    model: "gemini-2.5-flash",
    tools: [],
    maxSteps: 1,
    clientTools: [],
    maxRetries: 0,
    context: {},
    executeTool: async () => undefined,
    ...overrides,
  };
}

/** The parts as compared: generated tool call ids (none on the wire) and error objects by what a caller sees. */
async function partsOf(parts: AsyncIterable<GenerationPart>, onPart?: (part: GenerationPart) => void): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const part of parts) {
    onPart?.(part);
    if (part.type === "tool-call") seen.push({ ...part, call: { ...part.call, id: part.call.id.length > 0 ? "<id>" : "" } });
    else if (part.type === "error") {
      const { message, code, statusCode, retryable, retryAfterMs } = part.error as unknown as Record<string, unknown>;
      seen.push({ type: "error", message, code, statusCode, retryable, retryAfterMs });
    } else seen.push(part);
  }
  return seen;
}

/** Runs `plan` through the AI SDK path and the lean engine (each on its own provider) and returns both sides. */
async function bothPaths(baseURL: string, overrides: Partial<GenerationPlan> = {}, keys?: () => KeySource) {
  const sdk = googleProvider(baseURL, keys?.());
  const lean = googleProvider(baseURL, keys?.());
  const endpoint = lean.gemini;
  if (endpoint === undefined) throw new Error("the google type makes a Gemini endpoint");
  try {
    return {
      sdk: await partsOf(streamWithModel(planOf(sdk, overrides))),
      lean: await partsOf(streamGemini(planOf(lean, overrides), endpoint)),
    };
  } finally {
    endpoint.close();
  }
}

/** What the two paths sent, side by side: path, key and parsed body of each request. */
function sentBy(requests: RecordedRequest[]) {
  return requests.map((request) => ({ path: request.path, key: request.headers["x-goog-api-key"], body: request.body }));
}
function halves(requests: RecordedRequest[]) {
  const sent = sentBy(requests);
  return { sdk: sent.slice(0, sent.length / 2), lean: sent.slice(sent.length / 2) };
}

describe("the Gemini stream engine against the AI SDK's path on the Gemini fake", () => {
  let upstream: Awaited<ReturnType<typeof startFakeGemini>>;
  beforeAll(async () => {
    upstream = await startFakeGemini();
    upstream.keys.add(VENDOR_KEY);
  });
  afterAll(() => upstream.close());
  afterEach(() => {
    upstream.scenario = "text";
    upstream.requests.length = 0;
  });

  it("sends the same body (system, history, settings, a JSON schema) and yields the same text parts and usage", async () => {
    const { sdk, lean } = await bothPaths(upstream.baseURL, {
      system: "be brief",
      history: [
        { role: "user", content: "earlier" },
        { role: "assistant", content: "noted" },
      ],
      temperature: 0.2,
      maxTokens: 50,
      topP: 0.9,
      stopSequences: ["END"],
      responseFormat: { name: "answer", schema: { type: "object", properties: { reply: { type: "string" } }, required: ["reply"] } },
    });
    expect(lean).toEqual(sdk);
    expect(lean.at(-1)).toEqual({
      type: "finish",
      reason: "stop",
      usage: { inputTokens: 12, outputTokens: 8, totalTokens: 20, cacheReadTokens: 5, reasoningTokens: 3 },
    });
    const sent = halves(upstream.requests);
    expect(sent.lean).toEqual(sent.sdk);
    // Which client sent each: the package's fetch names itself, Conduit's node:http request does not.
    expect(upstream.requests.map((request) => String(request.headers["user-agent"]).startsWith("ai-sdk/"))).toEqual([true, false]);
    expect(sent.lean[0]).toMatchObject({
      path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      key: VENDOR_KEY,
      body: { systemInstruction: { parts: [{ text: "be brief" }] }, generationConfig: { maxOutputTokens: 50, responseSchema: {} } },
    });
  });

  it("declares the caller's tools the same way and hands back the function call as a tool call", async () => {
    upstream.scenario = "first-tool";
    const { sdk, lean } = await bothPaths(upstream.baseURL, {
      clientTools: [{ name: "lookup", description: "finds a word", parameters: { type: "object", properties: { word: { type: "string" } } } }],
      toolChoice: "required",
    });
    expect(lean).toEqual(sdk);
    expect(lean).toContainEqual({ type: "tool-call", call: { id: "<id>", name: "lookup", arguments: { expression: "6*7" } } });
    expect(lean.at(-1)).toMatchObject({ type: "finish", reason: "tool-calls" });
    const sent = halves(upstream.requests);
    expect(sent.lean).toEqual(sent.sdk);
    expect(sent.lean[0]?.body).toMatchObject({ tools: [{ functionDeclarations: [{ name: "lookup" }] }] });
  });

  it("sends a conversation with tool calls, tool results and text parts as the package does", async () => {
    const { sdk, lean } = await bothPaths(upstream.baseURL, {
      clientTools: [{ name: "lookup", parameters: { type: "object", properties: { word: { type: "string" } } } }],
      toolChoice: { type: "tool", name: "lookup" },
      conversation: [
        { role: "system", content: "use the tool" },
        { role: "user", content: [{ type: "text", text: "look it up" }] },
        { role: "assistant", content: "let me see", toolCalls: [{ id: "call-1", name: "lookup", arguments: { word: "a" } }] },
        { role: "tool", toolCallId: "call-1", toolName: "lookup", content: "found" },
        { role: "user", content: "again" },
      ],
    });
    expect(lean).toEqual(sdk);
    expect(lean.at(-1)).toMatchObject({ type: "finish", reason: "stop" });
    const sent = halves(upstream.requests);
    expect(sent.lean).toEqual(sent.sdk);
    expect(sent.lean[0]?.body).toMatchObject({
      contents: [{ role: "user" }, { role: "model" }, { role: "user", parts: [{ functionResponse: { name: "lookup" } }] }, { role: "user" }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["lookup"] } },
    });
  });

  it.each(["rate-limited", "server-error", "unauthorized"] as const)("passes the vendor's %s answer through as the same error", async (scenario) => {
    upstream.scenario = scenario;
    const { sdk, lean } = await bothPaths(upstream.baseURL);
    expect(lean).toEqual(sdk);
    expect(lean).toHaveLength(1);
    expect(lean[0]).toMatchObject({ type: "error" });
    expect(upstream.requests).toHaveLength(2);
  });

  it("retries a 500 with the same backoff count (maxRetries)", async () => {
    upstream.scenario = "server-error";
    const { sdk, lean } = await bothPaths(upstream.baseURL, { maxRetries: 1 });
    expect(lean).toEqual(sdk);
    expect(upstream.requests).toHaveLength(4);
  }, 30_000);
});

/** A Gemini server answering each streamed call with `frames` (or as `answer` says). */
async function gemini(answer: (request: RecordedRequest, response: ServerResponse) => void): Promise<FakeServer> {
  return startFakeServer(answer);
}
const frame = (body: unknown) => `data: ${JSON.stringify(body)}\r\n\r\n`;
const candidate = (parts: unknown[], extra: Record<string, unknown> = {}) => ({ candidates: [{ content: { role: "model", parts }, ...extra }] });

describe("the Gemini stream engine on the chunks the fake does not send", () => {
  const servers: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  async function serve(answer: (request: RecordedRequest, response: ServerResponse) => void) {
    const server = await gemini(answer);
    servers.push(server);
    return `${server.url}/v1beta`;
  }

  it("numbers text blocks after thoughts, passes signature-only deltas, and sums a continued answer's usage", async () => {
    const baseURL = await serve((request, response) => {
      startEventStream(response);
      const continued = request.body.continuationToken === "next";
      if (!continued) {
        response.end(
          frame(candidate([{ text: "thinking", thought: true }])) +
            frame(candidate([{ text: "Hel" }, { text: "", thoughtSignature: "sig" }])) +
            frame(candidate([{ inlineData: { mimeType: "image/png", data: "AA==" } }, { text: "lo" }])) +
            frame({
              ...candidate([], { finishReason: "CONTINUATION", continuationToken: "next" }),
              usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 2, cachedContentTokenCount: 6 },
            }),
        );
        return;
      }
      response.end(
        frame({ ...candidate([{ text: " world" }], { finishReason: "MAX_TOKENS" }), usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3 } }),
      );
    });
    const { sdk, lean } = await bothPaths(baseURL);
    expect(lean).toEqual(sdk);
    expect(lean.map((part) => (part as GenerationPart).type)).toEqual([
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "finish",
    ]);
    expect(lean.at(-1)).toEqual({
      type: "finish",
      reason: "length",
      usage: { inputTokens: 20, outputTokens: 9, totalTokens: 29, cacheReadTokens: 6, reasoningTokens: 2 },
    });
  });

  it("reports a blocked prompt as content-filter and an error sent mid-stream as the vendor's error", async () => {
    const blocked = await serve((_request, response) => {
      startEventStream(response);
      response.end(frame({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 3 } }));
    });
    const first = await bothPaths(blocked);
    expect(first.lean).toEqual(first.sdk);
    expect(first.lean).toEqual([{ type: "finish", reason: "content-filter", usage: { inputTokens: 3, outputTokens: 0, totalTokens: 3 } }]);
    const failing = await serve((_request, response) => {
      startEventStream(response);
      response.end(frame(candidate([{ text: "par" }])) + frame({ error: { code: 503, message: "model overloaded", status: "UNAVAILABLE" } }));
    });
    const second = await bothPaths(failing);
    expect(second.lean).toEqual(second.sdk);
    expect(second.lean.at(-1)).toMatchObject({ type: "error", statusCode: 502, message: expect.stringContaining("503: model overloaded") });
  });

  it("moves to the pool's other key when one answers 429, in the same call, reporting both answers", async () => {
    const baseURL = await serve((request, response) => {
      if (request.headers["x-goog-api-key"] === "cold")
        return sendJson(response, 429, { error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED" } }, { "retry-after": "7" });
      startEventStream(response);
      response.end(frame({ ...candidate([{ text: "ok" }], { finishReason: "STOP" }), usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 } }));
    });
    const outcomes: Array<number | undefined> = [];
    const pool = (): KeySource => {
      let next = 0;
      return {
        keys: 2,
        pick: () => {
          const key = next++ % 2 === 0 ? "cold" : "warm";
          return { key, report: (outcome: KeyOutcome) => outcomes.push(outcome.status) };
        },
      };
    };
    const { sdk, lean } = await bothPaths(baseURL, {}, pool);
    expect(lean).toEqual(sdk);
    expect(lean.at(-1)).toMatchObject({ type: "finish", reason: "stop" });
    expect(outcomes).toEqual([429, 200, 429, 200]);
  });

  it("ends the upstream request and yields the abort when the caller cancels mid-stream", async () => {
    let server: FakeServer | undefined;
    server = await gemini((_request, response) => {
      startEventStream(response);
      response.write(frame(candidate([{ text: "partial" }])));
    });
    servers.push(server);
    const baseURL = `${server.url}/v1beta`;
    const run = async (lean: boolean) => {
      const provider = googleProvider(baseURL);
      const controller = new AbortController();
      const plan = planOf(provider, { context: { signal: controller.signal } });
      const parts = lean && provider.gemini ? streamGemini(plan, provider.gemini) : streamWithModel(plan);
      try {
        return await partsOf(parts, (part) => part.type === "text-delta" && controller.abort());
      } finally {
        provider.gemini?.close();
      }
    };
    const sdk = await run(false);
    const lean = await run(true);
    expect(lean).toEqual(sdk);
    expect(lean.at(-1)).toMatchObject({ type: "error", statusCode: 499 });
    await Promise.all(server.requests.map((request) => request.closed));
    expect(server.cancelled).toBe(2);
  });
});
