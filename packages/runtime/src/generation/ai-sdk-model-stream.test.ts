import type { ConversationMessage, DataStreamEvent } from "@conduit-ai/server-core";
import { type VendorFake, startFakeGemini } from "@conduit-ai/fakes";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";

// A stream of an AI SDK provider (here `google`, the Gemini API fake) read straight from the
// package's `doStream` when the runtime runs no tool of its own: the conversation, the caller's
// tools and settings reach the vendor as `streamText` sent them, and the parts come back the same.
const KEY = "gemini-model-stream-key";
const upstreams: VendorFake[] = [];
const runtimes: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await Promise.all(upstreams.splice(0).map((upstream) => upstream.close()));
});

async function gemini(options: { maxRetries?: number; providerTimeout?: { stepMs: number; chunkMs: number } } = {}) {
  const upstream = await startFakeGemini();
  upstream.keys.add(KEY);
  upstreams.push(upstream);
  const runtime = createRuntime({
    env: {},
    maxRetries: options.maxRetries ?? 0,
    ...(options.providerTimeout ? { providerTimeout: options.providerTimeout } : {}),
    providers: { gem: { type: "google", apiKeys: [KEY], baseURL: upstream.baseURL } },
  });
  runtimes.push(runtime);
  return { upstream, runtime };
}

async function collect(stream: AsyncIterable<DataStreamEvent>): Promise<DataStreamEvent[]> {
  const events: DataStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const lookup = {
  name: "lookup",
  description: "Looks a thing up",
  parameters: { type: "object", properties: { expression: { type: "string" } } },
};
const conversation: ConversationMessage[] = [
  { role: "system", content: "be brief" },
  { role: "user", content: "What is 6*7?" },
];

describe("an AI SDK provider's stream without runtime tools", () => {
  it("streams the text and a finish with the vendor's usage (cache reads and reasoning)", async () => {
    const { upstream, runtime } = await gemini();
    const events = await collect(
      runtime.stream({ messages: conversation, model: "gem/gemini-2.5-flash", temperature: 0.3, maxTokens: 99 }),
    );
    const text = events.flatMap((event) => (event.type === "text-delta" ? [(event.data as { delta: string }).delta] : [])).join("");
    expect(text).toBe("Gemini heard 1 messages");
    expect(events.at(-1)).toMatchObject({
      type: "finish",
      data: { reason: "stop", usage: { inputTokens: 12, outputTokens: 8, cacheReadTokens: 5, reasoningTokens: 3 } },
    });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.path).toContain(":streamGenerateContent?alt=sse");
    expect(upstream.requests[0]?.body).toMatchObject({
      systemInstruction: { parts: [{ text: "be brief" }] },
      contents: [{ role: "user", parts: [{ text: "What is 6*7?" }] }],
      generationConfig: { temperature: 0.3, maxOutputTokens: 99 },
    });
  });

  it("declares the caller's tools, hands their call back unexecuted and ends the generation (one vendor call)", async () => {
    const { upstream, runtime } = await gemini();
    upstream.scenario = "first-tool";
    const events = await collect(
      runtime.stream({ messages: conversation, model: "gem/gemini-2.5-flash", clientTools: [lookup], toolChoice: { name: "lookup" } }),
    );
    expect(events.map((event) => event.type)).toEqual(["tool-call", "finish"]);
    expect(events[0]?.data).toMatchObject({ name: "lookup", arguments: { expression: "6*7" } });
    expect(events.at(-1)).toMatchObject({ type: "finish", data: { reason: "tool-calls" } });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.body).toMatchObject({
      tools: [{ functionDeclarations: [{ name: "lookup", description: "Looks a thing up" }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["lookup"] } },
    });
  });

  it("asks for JSON with the caller's schema", async () => {
    const { upstream, runtime } = await gemini();
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    await collect(runtime.stream({ messages: conversation, model: "gem/gemini-2.5-flash", responseFormat: { type: "json", schema } }));
    expect(upstream.requests[0]?.body).toMatchObject({
      generationConfig: {
        responseMimeType: "application/json",
        responseSchema: { type: "object", properties: { answer: { type: "string" } } },
      },
    });
  });

  it("retries a failing vendor before the stream starts, then ends with one error event in the vendor's status", async () => {
    const { upstream, runtime } = await gemini({ maxRetries: 2 });
    upstream.scenario = "server-error";
    const events = await collect(runtime.stream({ messages: conversation, model: "gem/gemini-2.5-flash" }));
    expect(upstream.requests).toHaveLength(3);
    expect(events.map((event) => event.type)).toEqual(["error"]);
  });

  it("a stream gone quiet fails with one PROVIDER_TIMEOUT error event", async () => {
    const { upstream, runtime } = await gemini({ providerTimeout: { stepMs: 5_000, chunkMs: 300 } });
    upstream.scenario = "stall";
    const events = await collect(runtime.stream({ messages: conversation, model: "gem/gemini-2.5-flash" }));
    expect(events.filter((event) => event.type === "error")).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ code: "PROVIDER_TIMEOUT" }) }),
    ]);
    expect(events.at(-1)?.type).toBe("error");
  });
});
