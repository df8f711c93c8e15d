import { createServer } from "node:http";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeAnthropic, startFakeAnthropic, listenOnLoopback } from "@conduit-ai/fakes";
import { CLIENT_KEY, type ProxyServer, startProxyServer } from "../testing/proxy-server.js";
import { chatCompletionsFor } from "./openai-surfaces.js";

// Long answers through the whole server (registerAllRoutes, the server's default
// 30 s timeout in place): a non-streaming answer that takes 35 s arrives whole, and a client that
// leaves mid-request ends the upstream request — the upstream sees its connection close.
const POOL_KEY = "sk-ant-long-answers";

describe("a 35 s non-streaming answer on /v1/chat/completions", () => {
  let fake: FakeAnthropic;
  let server: ProxyServer;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add(POOL_KEY);
    fake.responseDelayMs = 35_000;
    server = await startProxyServer(
      { upstream: { anthropic: fake.url }, accounts: [{ id: "a", type: "api-key", apiKey: POOL_KEY }] },
      { chatCompletions: chatCompletionsFor() },
    );
  });
  afterAll(async () => {
    await server.stop();
    await fake.close();
  });

  it("arrives whole, once, past the server's 30 s timeout", { timeout: 90_000 }, async () => {
    const openai = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 80_000 });
    const started = performance.now();
    const completion = await openai.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(35_000);
    expect(completion.choices[0]!.message.content).toBe("Hello from the fake — ünïcödé ✓ 🚀");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(fake.exchanges.filter((exchange) => exchange.url === "/v1/messages")).toHaveLength(1);
  });
});

/** A Messages API upstream that starts answering (or not) and then holds, reporting when a request's connection closes. */
async function startHangingUpstream() {
  const seen: Array<{ stream: boolean; closed: Promise<void> }> = [];
  let arrived: (() => void) | undefined;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { stream?: boolean; model: string };
    const closed = new Promise<void>((resolve) => response.once("close", () => resolve()));
    seen.push({ stream: body.stream === true, closed });
    if (body.stream) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const message = {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: body.model,
        content: [],
        stop_reason: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      };
      response.write(`event: message_start\ndata: ${JSON.stringify({ type: "message_start", message })}\n\n`);
      response.write(
        `event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })}\n\n`,
      );
      response.write(
        `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } })}\n\n`,
      );
    }
    arrived?.();
    // …and never finishes: only the proxy ending the request closes it.
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    seen,
    close,
    nextArrival: () => new Promise<void>((resolve) => (arrived = resolve)),
  };
}

describe("a client leaving mid-request cancels the upstream request", () => {
  let upstream: Awaited<ReturnType<typeof startHangingUpstream>>;
  let server: ProxyServer;
  beforeAll(async () => {
    upstream = await startHangingUpstream();
    server = await startProxyServer(
      { upstream: { anthropic: upstream.url }, accounts: [{ id: "a", type: "api-key", apiKey: POOL_KEY }] },
      { chatCompletions: chatCompletionsFor() },
    );
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  const cases = [
    { path: "/v1/chat/completions", stream: false, body: { model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] } },
    { path: "/v1/chat/completions", stream: true, body: { model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] } },
    { path: "/v1/responses", stream: false, body: { model: "claude-sonnet-4-5", input: "Hi" } },
    { path: "/v1/responses", stream: true, body: { model: "claude-sonnet-4-5", input: "Hi" } },
  ];
  for (const { path, stream, body } of cases) {
    it(`${path} ${stream ? "streamed" : "JSON"}`, { timeout: 20_000 }, async () => {
      const controller = new AbortController();
      const arrival = upstream.nextArrival();
      const answer = fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${CLIENT_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ ...body, stream }),
        signal: controller.signal,
      });
      await arrival;
      const seen = upstream.seen.at(-1)!;
      expect(seen.stream).toBe(stream);
      if (stream) {
        // The stream started: the client has its first bytes, then leaves.
        const response = await answer;
        expect(response.status).toBe(200);
        const reader = response.body!.getReader();
        expect((await reader.read()).done).toBe(false);
      }
      controller.abort();
      await expect(answer.then((response) => response.text())).rejects.toThrow();
      const closedInTime = await Promise.race([
        seen.closed.then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), 5_000)),
      ]);
      expect(closedInTime).toBe(true);
    });
  }
});
