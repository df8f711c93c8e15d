import { startFakeGemini, VENDOR_KEY } from "@conduit-ai/fakes";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bothPaths, halves } from "../testing/gemini-parity.fixture.js";

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
        { role: "user", content: "earlier", timestamp: "2026-01-01T00:00:00.000Z" },
        { role: "assistant", content: "noted", timestamp: "2026-01-01T00:00:01.000Z" },
      ],
      temperature: 0.2,
      maxTokens: 50,
      topP: 0.9,
      stopSequences: ["END"],
      responseFormat: {
        type: "json",
        name: "answer",
        schema: { type: "object", properties: { reply: { type: "string" } }, required: ["reply"] },
      },
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
      clientTools: [
        { name: "lookup", description: "finds a word", parameters: { type: "object", properties: { word: { type: "string" } } } },
      ],
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
      toolChoice: { name: "lookup" },
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
      contents: [
        { role: "user" },
        { role: "model" },
        { role: "user", parts: [{ functionResponse: { name: "lookup" } }] },
        { role: "user" },
      ],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["lookup"] } },
    });
  });

  it.each(["rate-limited", "server-error", "unauthorized"] as const)(
    "passes the vendor's %s answer through as the same error",
    async (scenario) => {
      upstream.scenario = scenario;
      const { sdk, lean } = await bothPaths(upstream.baseURL);
      expect(lean).toEqual(sdk);
      expect(lean).toHaveLength(1);
      expect(lean[0]).toMatchObject({ type: "error" });
      expect(upstream.requests).toHaveLength(2);
    },
  );

  it("retries a 500 with the same backoff count (maxRetries)", async () => {
    upstream.scenario = "server-error";
    const { sdk, lean } = await bothPaths(upstream.baseURL, { maxRetries: 1 });
    expect(lean).toEqual(sdk);
    expect(upstream.requests).toHaveLength(4);
  }, 30_000);
});
