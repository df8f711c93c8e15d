import type { ServerResponse } from "node:http";
import type { DataStreamEvent } from "@conduit-ai/server-core";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";
import { type FakeServer, type RecordedRequest, startEventStream, startFakeServer } from "@conduit-ai/fakes";

/** The Chat Completions SSE frame of one chunk. */
const frame = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`;
const delta = (content: string) => frame({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const stop = frame({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
const usage = frame({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 } });

async function collect(events: AsyncIterable<DataStreamEvent>): Promise<DataStreamEvent[]> {
  const all: DataStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const upstreams: FakeServer[] = [];
const runtimes: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await Promise.all(upstreams.splice(0).map((upstream) => upstream.close()));
});

/** A runtime on a local Chat Completions server answering every call through `answer`. */
async function setup(
  answer: (request: RecordedRequest, response: ServerResponse, call: number) => void,
  options: Parameters<typeof createRuntime>[0] = {},
) {
  let calls = 0;
  const upstream = await startFakeServer((request, response) => answer(request, response, calls++));
  upstreams.push(upstream);
  const runtime = createRuntime({ env: { OPENAI_BASE_URL: `${upstream.url}/v1`, OPENAI_MODELS: "m1" }, maxRetries: 0, ...options });
  runtimes.push(runtime);
  return { upstream, runtime };
}

describe("Chat Completions streams read by Conduit's own client", () => {
  it("sends the conversation and settings, streams the deltas and reports usage", async () => {
    const { upstream, runtime } = await setup((_request, response) => {
      startEventStream(response);
      response.end(delta("Hel") + delta("lo") + stop + usage + "data: [DONE]\n\n");
    });
    const events = await collect(runtime.stream({ input: { text: "hi" }, system: "be brief", temperature: 0.2, maxTokens: 50 }));
    expect(events.map((event) => event.type)).toEqual(["text-start", "text-delta", "text-delta", "text-end", "finish"]);
    expect(events.at(-1)?.data).toEqual({ reason: "stop", usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 } });
    expect(upstream.requests[0]?.path).toBe("/v1/chat/completions");
    expect(upstream.requests[0]?.body).toMatchObject({
      model: "m1",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_tokens: 50,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("cancels the upstream call when the consumer stops reading (a client gone)", async () => {
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    const { runtime } = await setup((_request, response) => {
      startEventStream(response);
      response.write(delta("first "));
      const timer = setInterval(() => response.write(delta("more ")), 20);
      response.on("close", () => {
        clearInterval(timer);
        closed();
      });
    });
    for await (const event of runtime.stream({ input: { text: "long" } })) {
      if (event.type === "text-delta") break;
    }
    await upstreamClosed;
  });

  it("stops on the caller's abort signal with STREAM_ABORTED and closes the upstream connection", async () => {
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    const { runtime } = await setup((_request, response) => {
      startEventStream(response);
      response.write(delta("first "));
      response.on("close", () => closed());
    });
    const controller = new AbortController();
    const events: DataStreamEvent[] = [];
    for await (const event of runtime.stream({ input: { text: "x" } }, { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: "error", data: { code: "STREAM_ABORTED" } });
    await upstreamClosed;
  });

  it("retries a 429 after the time the server asks for, then streams", async () => {
    const { upstream, runtime } = await setup(
      (_request, response, call) => {
        if (call === 0) {
          response.writeHead(429, { "content-type": "application/json", "retry-after-ms": "50" });
          response.end(JSON.stringify({ error: { message: "slow down" } }));
          return;
        }
        startEventStream(response);
        response.end(delta("ok") + stop + "data: [DONE]\n\n");
      },
      { maxRetries: 1 },
    );
    const events = await collect(runtime.stream({ input: { text: "x" } }));
    expect(events.map((event) => event.type)).toEqual(["text-start", "text-delta", "text-end", "finish"]);
    expect(upstream.requests).toHaveLength(2);
  });

  it("reports the server's own message for a refused call and an error sent mid-stream", async () => {
    const refused = await setup((_request, response) => {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "model m1 does not exist" } }));
    });
    const [failure] = await collect(refused.runtime.stream({ input: { text: "x" } }));
    expect(failure).toMatchObject({
      type: "error",
      data: { code: "PROVIDER_ERROR", message: expect.stringContaining("model m1 does not exist") },
    });

    const midway = await setup((_request, response) => {
      startEventStream(response);
      response.end(delta("partial ") + frame({ error: { message: "overloaded" } }));
    });
    const events = await collect(midway.runtime.stream({ input: { text: "x" } }));
    expect(events.at(-1)).toMatchObject({
      type: "error",
      data: { code: "PROVIDER_ERROR", message: expect.stringContaining("overloaded") },
    });
    expect(events.filter((event) => event.type === "error")).toHaveLength(1);
  });

  it("ends with one error event for a chunk that is not JSON", async () => {
    const { runtime } = await setup((_request, response) => {
      startEventStream(response);
      response.end(`${delta("a")}data: {not json\n\n`);
    });
    const events = await collect(runtime.stream({ input: { text: "x" } }));
    expect(events.at(-1)).toMatchObject({ type: "error", data: { code: "PROVIDER_ERROR" } });
  });

  it("assembles tool calls sent in pieces, feeds the results back and stops at maxSteps", async () => {
    const { upstream, runtime } = await setup((request, response) => {
      startEventStream(response);
      const hasToolResult = (request.body.messages as Array<{ role: string }>).some((message) => message.role === "tool");
      if (hasToolResult && request.body.tools === undefined) throw new Error("tools must be sent on every step");
      const call = (index: number, piece: Record<string, unknown>) =>
        frame({ choices: [{ index: 0, delta: { tool_calls: [{ index, ...piece }] }, finish_reason: null }] });
      response.end(
        call(0, { id: "call_a", type: "function", function: { name: "calcu", arguments: '{"expres' } }) +
          call(0, { function: { name: "lator", arguments: 'sion":"6*7"}' } }) +
          frame({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }) +
          "data: [DONE]\n\n",
      );
    });
    const events = await collect(runtime.stream({ input: { text: "6*7?" }, tools: ["calculator"], maxSteps: 2 }));
    expect(events.map((event) => event.type)).toEqual(["tool-call", "tool-result", "tool-call", "tool-result", "finish"]);
    expect(events[0]?.data).toEqual({ id: "call_a", name: "calculator", arguments: { expression: "6*7" } });
    expect(events[1]?.data).toMatchObject({ id: "call_a", name: "calculator", result: { value: 42 } });
    expect(events.at(-1)?.data).toMatchObject({ reason: "tool-calls" });
    // The second step carried the assistant's call and the tool's answer.
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[1]?.body.messages).toEqual([
      { role: "user", content: "6*7?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_a", type: "function", function: { name: "calculator", arguments: '{"expression":"6*7"}' } }],
      },
      { role: "tool", tool_call_id: "call_a", content: expect.stringContaining('"value":42') },
    ]);
  });
});
