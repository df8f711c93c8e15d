import { readFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type ConduitProxy, chatCompletionsFor, createProxy } from "@conduit-ai/proxy";
import { createRuntime } from "@conduit-ai/runtime";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

// A real Codex CLI turn on /v1/responses, replayed without the CLI. The fixture holds
// what Codex CLI 0.171.0 sent to `conduit proxy` (a custom provider, wire_api "responses", model
// claude-sonnet-4-5: an exec_command call, then its output), the Messages requests Conduit made of
// the upstream fake and its answers, and what Codex got back. Recorded by
// `pnpm test:real-clients --record packages/conformance/src/fixtures`.

interface RecordedExchange {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  upstream: { path: string; requestBody: string; status: number; contentType: string; body: string } | null;
  answer: { status: number; contentType: string | null; events: string[] | null };
}

const recording = JSON.parse(readFileSync(new URL("./fixtures/codex-sessions.json", import.meta.url), "utf8")) as {
  sessions: Record<string, RecordedExchange[]>;
};
const exchanges = recording.sessions["responses-tool-turn"] ?? [];
const CLIENT_KEY = "replay-client-key-0123456789";

interface MessagesRequest {
  model: string;
  stream?: boolean;
  tools?: Array<{ name: string }>;
  messages: Array<{ role: string; content: unknown }>;
}

/** Answers the recorded upstream answers in order and keeps what Conduit sent. */
async function startReplayUpstream() {
  const queue: RecordedExchange[] = [];
  const received: Array<{ path: string; body: MessagesRequest }> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ path: request.url ?? "", body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as MessagesRequest });
      const next = queue.shift()?.upstream;
      if (!next) {
        response
          .writeHead(500, { "content-type": "application/json" })
          .end('{"type":"error","error":{"type":"api_error","message":"no recording"}}');
        return;
      }
      response.writeHead(next.status, { "content-type": next.contentType }).end(next.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    load: () => queue.splice(0, queue.length, ...exchanges.filter((exchange) => exchange.upstream !== null)),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const eventsOf = (body: string) => [...body.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
const textOf = (body: string) =>
  [...body.matchAll(/^data: (.+)$/gm)]
    .map((match) => JSON.parse(match[1] ?? "{}") as { type?: string; delta?: string })
    .filter((event) => event.type === "response.output_text.delta")
    .map((event) => event.delta)
    .join("");

let upstream: Awaited<ReturnType<typeof startReplayUpstream>>;
// `conduit proxy` and `conduit serve` give the proxy the runtime's chat completions; /v1/responses comes with it.
const runtime = createRuntime({ env: {} });
beforeAll(async () => {
  upstream = await startReplayUpstream();
});
afterAll(async () => {
  await upstream.close();
  await runtime.close();
});

forEachAdapter("a recorded Codex CLI turn on /v1/responses replayed through the proxy", ({ start }) => {
  let proxy: ConduitProxy;
  afterEach(() => proxy?.close());

  it("answers both calls as live: the exec_command call, then the final text from its output", async () => {
    proxy = createProxy(
      {
        enabled: true,
        upstream: { anthropic: upstream.url },
        clientKeys: [CLIENT_KEY],
        accounts: [{ id: "pool", type: "api-key", apiKey: "sk-ant-replay-pool" }],
      },
      { chatCompletions: chatCompletionsFor(runtime) },
    );
    const server = await start({ setup: (adapter) => void registerAllRoutes(adapter, undefined, { proxy }) });
    upstream.load();
    const before = upstream.received.length;
    let lastText = "";
    for (const exchange of exchanges) {
      const response = await fetch(server.url(exchange.path), {
        method: exchange.method,
        headers: { ...exchange.headers, authorization: `Bearer ${CLIENT_KEY}` },
        body: exchange.body,
      });
      const body = await response.text();
      expect([response.status, response.headers.get("content-type")]).toEqual([exchange.answer.status, exchange.answer.contentType]);
      expect(eventsOf(body)).toEqual(exchange.answer.events);
      lastText = textOf(body);
    }
    expect(lastText).toBe("The file says the secret word is pineapple-42.");
    // Conduit's Messages requests carry what the live ones did: the model, Codex's tools, and the
    // exec_command output as a tool_result in the second.
    const sent = upstream.received.slice(before);
    const recorded = exchanges.flatMap((exchange) =>
      exchange.upstream ? [JSON.parse(exchange.upstream.requestBody) as MessagesRequest] : [],
    );
    expect(sent.map((request) => request.path)).toEqual(["/v1/messages", "/v1/messages"]);
    expect(sent.map(({ body }) => [body.model, body.stream, body.tools?.map((tool) => tool.name)])).toEqual(
      recorded.map((body) => [body.model, body.stream, body.tools?.map((tool) => tool.name)]),
    );
    expect(JSON.stringify(sent[1]?.body.messages.at(-1))).toMatch(/"tool_result".*pineapple-42/);
  });
});
