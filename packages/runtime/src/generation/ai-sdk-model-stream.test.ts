import type { ConversationMessage, DataStreamEvent } from "@conduit-ai/server-core";
import { type FakeServer, PROVIDER_CASES } from "@conduit-ai/fakes";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";
import type { ProviderConfig } from "../providers/providers-config.js";

// A stream on the Gemini wire without runtime tools, on both of its paths: `vertex` read straight
// from the AI SDK package's `doStream` (ai-sdk-model-stream.ts), `google` by Conduit's own client
// (gemini-stream-engine.ts, whose parts and bodies gemini-stream-engine.test.ts holds to the
// package's). The conversation, the caller's tools and settings reach the vendor as `streamText`
// sent them, and the parts come back the same.
const upstreams: FakeServer[] = [];
const runtimes: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await Promise.all(upstreams.splice(0).map((upstream) => upstream.close()));
});

const GEMINI_WIRE = PROVIDER_CASES.filter((vendor) => vendor.type === "google" || vendor.type === "vertex");

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

describe.each(GEMINI_WIRE)("a $type stream without runtime tools", (vendor) => {
  const model = `gem/${vendor.model}`;
  async function gemini(options: { maxRetries?: number; providerTimeout?: { stepMs: number; chunkMs: number } } = {}) {
    const upstream = await vendor.start();
    upstreams.push(upstream);
    const runtime = createRuntime({
      env: {},
      maxRetries: options.maxRetries ?? 0,
      ...(options.providerTimeout ? { providerTimeout: options.providerTimeout } : {}),
      providers: { gem: vendor.provider(upstream) as ProviderConfig },
    });
    runtimes.push(runtime);
    return { upstream, runtime };
  }

  it("streams the text and a finish with the vendor's usage (cache reads and reasoning)", async () => {
    const { upstream, runtime } = await gemini();
    const events = await collect(runtime.stream({ messages: conversation, model, temperature: 0.3, maxTokens: 99 }));
    const text = events.flatMap((event) => (event.type === "text-delta" ? [(event.data as { delta: string }).delta] : [])).join("");
    expect(text).toBe(`${vendor.speaker} heard 1 messages`);
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
    const events = await collect(runtime.stream({ messages: conversation, model, clientTools: [lookup], toolChoice: { name: "lookup" } }));
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
    await collect(runtime.stream({ messages: conversation, model, responseFormat: { type: "json", schema } }));
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
    const events = await collect(runtime.stream({ messages: conversation, model }));
    expect(upstream.requests).toHaveLength(3);
    expect(events.map((event) => event.type)).toEqual(["error"]);
  });

  it("a stream gone quiet fails with one PROVIDER_TIMEOUT error event", async () => {
    const { upstream, runtime } = await gemini({ providerTimeout: { stepMs: 5_000, chunkMs: 300 } });
    upstream.scenario = "stall";
    const events = await collect(runtime.stream({ messages: conversation, model }));
    expect(events.filter((event) => event.type === "error")).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ code: "PROVIDER_TIMEOUT" }) }),
    ]);
    expect(events.at(-1)?.type).toBe("error");
  });
});
