import { type BaseServerAdapter, type GenerateRequest, registerAllRoutes } from "@conduit-ai/server-core";
import {
  DefaultChatTransport,
  type UIMessage,
  type UIMessageChunk,
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
} from "ai";
import { expect, it } from "vitest";
import { createContractRuntime } from "./fixtures/contract-runtime.js";
import { forEachAdapter } from "./harness.js";

/**
 * `/agent/stream` speaks the Vercel AI SDK UI message stream protocol on request, read here by
 * the AI SDK's own client code (`DefaultChatTransport`, the transport `useChat` uses, and
 * `readUIMessageStream`), so a React/Next.js front end needs no glue.
 */
function recordingRuntime() {
  const runtime = createContractRuntime();
  const requests: GenerateRequest[] = [];
  const stream = runtime.stream.bind(runtime);
  runtime.stream = (request, context) => {
    requests.push(request);
    return stream(request, context);
  };
  return { runtime, requests };
}

const setup = (adapter: BaseServerAdapter<unknown>) => {
  registerAllRoutes(adapter);
  adapter.registerRoute({
    method: "GET",
    path: "/tool-stream",
    streaming: true,
    handler: async function* () {
      yield { type: "tool-call", id: "call-1", timestamp: 1, data: { id: "call-1", name: "add", arguments: { a: 2, b: 40 } } };
      yield { type: "tool-result", id: "call-1", timestamp: 2, data: { id: "call-1", name: "add", result: 42 } };
      // A delta for a part never started: the encoder opens it (the SDK rejects unknown parts).
      yield { type: "text-delta", id: "t9", timestamp: 3, data: { delta: "It is 42." } };
      throw new Error("upstream broke");
    },
  });
};

const userMessage = (text: string): UIMessage => ({ id: "m1", role: "user", parts: [{ type: "text", text }] });

async function lastMessage(stream: ReadableStream<UIMessageChunk>, errors: unknown[] = []): Promise<UIMessage | undefined> {
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push(error) })) message = snapshot;
  return message;
}

forEachAdapter("AI SDK UI message stream", ({ start }) => {
  it("answers a useChat request (DefaultChatTransport) with a UI message stream the SDK assembles", async () => {
    const { runtime, requests } = recordingRuntime();
    const server = await start({ runtime, config: { rateLimit: { enabled: false } }, setup });
    const transport = new DefaultChatTransport<UIMessage>({ api: server.url("/api/agent/stream?format=ui-message") });
    const chunks = await transport.sendMessages({
      chatId: "chat-42",
      messages: [userMessage("one two")],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
    });
    const message = await lastMessage(chunks);
    expect(message?.role).toBe("assistant");
    expect(message?.parts).toEqual([{ type: "text", text: "echo: one two ", state: "done" }]);
    expect(message?.metadata).toEqual({ reason: "stop", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } });
    // The chat id is the session: Conduit's memory keeps the history.
    expect(requests.at(-1)).toEqual({ input: { text: "one two" }, sessionId: "chat-42" });
  });

  it("answers a useChat body in the UI message stream without a selector; ?format= and the header still force another", async () => {
    const { runtime } = recordingRuntime();
    const server = await start({ runtime, config: { rateLimit: { enabled: false } }, setup });
    // The URL a `useChat` page is most likely to be given: no `?format=`.
    const transport = new DefaultChatTransport<UIMessage>({ api: server.url("/api/agent/stream") });
    const chunks = await transport.sendMessages({
      chatId: "chat-7",
      messages: [userMessage("plain url")],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
    });
    const errors: unknown[] = [];
    const message = await lastMessage(chunks, errors);
    expect(errors).toEqual([]);
    expect(message?.parts).toEqual([{ type: "text", text: "echo: plain url ", state: "done" }]);
    const chatBody = JSON.stringify({ id: "c", messages: [userMessage("x")], trigger: "submit-message" });
    const post = (path: string, headers: Record<string, string> = {}) =>
      fetch(server.url(path), { method: "POST", headers: { "content-type": "application/json", ...headers }, body: chatBody });
    const forcedSse = await post("/api/agent/stream?format=sse");
    expect(forcedSse.headers.get("x-vercel-ai-ui-message-stream")).toBeNull();
    expect(await forcedSse.text()).toContain("event: finish");
    const forcedNdjson = await post("/api/agent/stream", { "x-conduit-stream-format": "ndjson" });
    expect(forcedNdjson.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(await forcedNdjson.text()).toContain('"type":"finish"');
    const byAccept = await post("/api/agent/stream", { accept: "application/x-ndjson" });
    expect(byAccept.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    await byAccept.body?.cancel();
  });

  it("sends the protocol's headers and frames, ending in [DONE], selected by header too", async () => {
    const { runtime } = recordingRuntime();
    const server = await start({ runtime, config: { rateLimit: { enabled: false } }, setup });
    const response = await fetch(server.url("/api/agent/stream"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-conduit-stream-format": "ui-message" },
      body: JSON.stringify({ input: { text: "hi" } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    const text = await response.text();
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const types: string[] = [];
    const parsed = parseJsonEventStream({ stream: new Response(text).body as ReadableStream<Uint8Array>, schema: uiMessageChunkSchema });
    for await (const result of parsed) {
      expect(result.success).toBe(true);
      if (result.success) types.push(result.value.type);
    }
    expect(types).toEqual(["start", "text-start", "text-delta", "text-delta", "text-end", "finish"]);
  });

  it("carries tool calls and results as tool parts and a mid-stream failure as an error chunk", async () => {
    const server = await start({ config: { rateLimit: { enabled: false } }, setup });
    const response = await fetch(server.url("/api/tool-stream?format=ui-message"));
    const errors: unknown[] = [];
    const parsed = parseJsonEventStream({ stream: response.body as ReadableStream<Uint8Array>, schema: uiMessageChunkSchema });
    const chunks = parsed.pipeThrough(
      new TransformStream({
        transform(result, controller) {
          if (!result.success) throw result.error;
          controller.enqueue(result.value);
        },
      }),
    );
    const message = await lastMessage(chunks, errors);
    expect(message?.parts).toEqual([
      expect.objectContaining({ type: "tool-add", toolCallId: "call-1", state: "output-available", input: { a: 2, b: 40 }, output: 42 }),
      { type: "text", text: "It is 42.", state: "done" },
    ]);
    expect(errors).toEqual([new Error("Stream processing failed")]);
  });

  it("keeps the plain SSE encoding without the selector, and refuses a useChat body without user text", async () => {
    const { runtime } = recordingRuntime();
    const server = await start({ runtime, config: { rateLimit: { enabled: false } }, setup });
    const plain = await fetch(server.url("/api/agent/stream"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"input":{"text":"x"}}',
    });
    expect(plain.headers.get("x-vercel-ai-ui-message-stream")).toBeNull();
    expect(await plain.text()).toContain("event: finish");
    const empty = await fetch(server.url("/api/agent/stream?format=ui-message"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "c",
        messages: [{ id: "a", role: "assistant", parts: [{ type: "text", text: "hello" }] }],
        trigger: "submit-message",
      }),
    });
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.code).toBe("VALIDATION_ERROR");
  });
});
