import { readFileSync } from "node:fs";
import { type IncomingMessage, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type ConduitProxy, createProxy } from "@conduit-ai/proxy";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

// A real Claude Code session, replayed without the CLI. The fixture holds the bytes
// Claude Code 2.1.197 sent through `conduit proxy` (a Read tool turn, and `/context` with its
// count_tokens calls), what the upstream fake answered and what Claude Code got back; recorded by
// `pnpm test:real-clients --record packages/conformance/src/fixtures/claude-code-sessions.json`.

interface RecordedExchange {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  upstream: { path: string; status: number; contentType: string; body: string } | null;
  answer: { status: number; contentType: string | null; events: string[] | null };
}
interface Recording {
  client: string;
  sessions: Record<string, RecordedExchange[]>;
}

const recording = JSON.parse(readFileSync(new URL("./fixtures/claude-code-sessions.json", import.meta.url), "utf8")) as Recording;
const CLIENT_KEY = "replay-client-key-0123456789";
const POOL_KEY = "sk-ant-replay-pool";

/** Replays the upstream's recorded answers: each request is matched to its recording by body. */
async function startReplayUpstream(): Promise<{
  url: string;
  received: Array<{ path: string; body: string; key: string }>;
  close(): Promise<void>;
}> {
  const answers = Object.values(recording.sessions)
    .flat()
    .filter((exchange) => exchange.upstream !== null);
  const received: Array<{ path: string; body: string; key: string }> = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ path: request.url ?? "", body, key: String(request.headers["x-api-key"]) });
      const match = answers.find((exchange) => exchange.body === body && exchange.upstream?.path === request.url)?.upstream;
      if (!match) {
        response
          .writeHead(500, { "content-type": "application/json" })
          .end('{"type":"error","error":{"type":"api_error","message":"no recording"}}');
        return;
      }
      response.writeHead(match.status, { "content-type": match.contentType }).end(match.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const eventsOf = (body: string) => [...body.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);

let upstream: Awaited<ReturnType<typeof startReplayUpstream>>;
beforeAll(async () => {
  upstream = await startReplayUpstream();
});
afterAll(() => upstream.close());

it("the fixture holds a tool turn (tool_use, then its tool_result) and /context's count_tokens calls", () => {
  const [first, second] = (recording.sessions["tool-turn"] ?? []).filter((exchange) => exchange.method === "POST");
  expect(first?.upstream?.body).toContain('"type":"tool_use"');
  expect(second?.body).toContain('"type":"tool_result"');
  expect(
    (recording.sessions.context ?? []).filter((exchange) => exchange.path.startsWith("/v1/messages/count_tokens")).length,
  ).toBeGreaterThan(0);
});

forEachAdapter("a recorded Claude Code session replayed through the proxy", ({ start }) => {
  let proxy: ConduitProxy;
  afterEach(() => proxy?.close());

  for (const [name, exchanges] of Object.entries(recording.sessions)) {
    it(`answers every call of the ${name} session as it was answered live`, async () => {
      proxy = createProxy({
        enabled: true,
        upstream: { anthropic: upstream.url },
        clientKeys: [CLIENT_KEY],
        accounts: [{ id: "pool", type: "api-key", apiKey: POOL_KEY }],
      });
      const server = await start({ setup: (adapter) => void registerAllRoutes(adapter, undefined, { proxy }) });
      for (const exchange of exchanges) {
        const before = upstream.received.length;
        const response = await fetch(server.url(exchange.path), {
          method: exchange.method,
          headers: { ...exchange.headers, "x-api-key": CLIENT_KEY },
          body: exchange.method === "GET" || exchange.method === "HEAD" ? undefined : exchange.body,
        });
        const body = await response.text();
        const call = `${exchange.method} ${exchange.path}`;
        expect([call, response.status, response.headers.get("content-type")]).toEqual([
          call,
          exchange.answer.status,
          exchange.answer.contentType,
        ]);
        if (exchange.answer.events) expect(eventsOf(body)).toEqual(exchange.answer.events);
        if (!exchange.upstream) continue;
        // The passthrough: the upstream got Claude Code's bytes with the pool's key, and its answer came back unchanged.
        expect(upstream.received.slice(before)).toEqual([{ path: exchange.upstream.path, body: exchange.body, key: POOL_KEY }]);
        expect(body).toBe(exchange.upstream.body);
      }
    });
  }
});
