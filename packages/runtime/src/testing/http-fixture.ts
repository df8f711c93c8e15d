import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Test-only: how a fake vendor server should answer the next requests. */
export type UpstreamScenario = "text" | "tool" | "first-tool" | "unauthorized" | "rate-limited" | "server-error" | "cut" | "hang" | "stall";

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

export interface FakeUpstream {
  url: string;
  scenario: UpstreamScenario;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type UpstreamHandler = (request: RecordedRequest, response: ServerResponse, upstream: FakeUpstream) => void;

/** Starts a loopback HTTP server that records JSON requests and answers through `handler`. */
export async function startFakeUpstream(handler: UpstreamHandler): Promise<FakeUpstream> {
  const upstream: FakeUpstream = { url: "", scenario: "text", requests: [], close: async () => {} };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const recorded: RecordedRequest = {
        path: request.url ?? "/",
        headers: request.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      };
      upstream.requests.push(recorded);
      // Accepts the request and never answers (a provider that hangs).
      if (upstream.scenario === "hang") return;
      handler(recorded, response, upstream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return upstream;
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

export function startEventStream(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
}

/** Writes part of a stream, then kills the socket without a proper end (a connection cut mid-stream). */
export function cutAfter(response: ServerResponse, firstFrame: string): void {
  startEventStream(response);
  response.write(firstFrame, () => setTimeout(() => response.socket?.destroy(), 20));
}

/** Starts a stream with one frame, then sends nothing more and never ends (a stalled provider). */
export function stallAfter(response: ServerResponse, firstFrame: string): void {
  startEventStream(response);
  response.write(firstFrame);
}
