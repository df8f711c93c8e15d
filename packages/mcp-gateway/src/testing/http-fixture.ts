import { randomUUID } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
// @ts-expect-error a plain ESM module shared with the stdio fixture
import { createFixtureServer } from "./fixture-server.mjs";

export interface HttpFixture {
  /** `http://127.0.0.1:<port>/mcp` (Streamable HTTP), or `…/sse` (the older HTTP+SSE transport). */
  url: string;
  /** Every request's Authorization header (or "none") and traceparent, in order. */
  readonly requests: Array<{ method: string; authorization: string; traceparent?: string | undefined }>;
  /** Tool calls the server saw cancelled (their request ids). */
  readonly cancelled: string[];
  /** Open upstream sessions. */
  readonly sessionCount: number;
  close(): Promise<void>;
}

export interface HttpFixtureOptions {
  /** Refuses a request with 401 when it returns false. */
  authorize?: (authorization: string | undefined) => boolean | Promise<boolean>;
  name?: string;
  /** `sse`: the older HTTP+SSE transport (`GET /sse`, `POST /messages?sessionId=`). Default Streamable HTTP. */
  transport?: "streamable-http" | "sse";
}

/**
 * The fixture server over Streamable HTTP (or the older HTTP+SSE transport) on a loopback port,
 * one SDK server per session (the SDK's stateful mode).
 *
 * @example
 * const upstream = await startHttpFixture({ authorize: (header) => header === "Bearer upstream-secret" });
 * const legacy = await startHttpFixture({ transport: "sse" });
 */
export async function startHttpFixture(options: HttpFixtureOptions = {}): Promise<HttpFixture> {
  const transports = new Map<string, StreamableHTTPServerTransport | SSEServerTransport>();
  const requests: HttpFixture["requests"] = [];
  const cancelled: string[] = [];
  const serve = (transport: StreamableHTTPServerTransport | SSEServerTransport) =>
    createFixtureServer({ name: options.name ?? "fixture-http", seen: { cancelled } }).connect(transport);
  // HTTP+SSE: the GET opens a session's event stream (its first event names where to POST).
  const handleSse = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://fixture");
    if (request.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", response);
      transports.set(transport.sessionId, transport);
      transport.onclose = () => void transports.delete(transport.sessionId);
      await serve(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get("sessionId") ?? "");
    if (request.method === "POST" && url.pathname === "/messages" && transport instanceof SSEServerTransport)
      await transport.handlePostMessage(request, response);
    else response.writeHead(404, { "content-type": "text/plain" }).end("Session not found");
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const authorization = request.headers.authorization;
    requests.push({
      method: request.method ?? "",
      authorization: authorization ?? "none",
      traceparent: request.headers.traceparent as string | undefined,
    });
    if (options.authorize && !(await options.authorize(authorization))) {
      response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    if (options.transport === "sse") return handleSse(request, response);
    const sessionId = request.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (typeof sessionId === "string") {
        response
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) transports.delete(created.sessionId);
      };
      await serve(created);
      transport = created;
    }
    if (transport instanceof StreamableHTTPServerTransport) await transport.handleRequest(request, response);
  };
  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${options.transport === "sse" ? "sse" : "mcp"}`,
    requests,
    cancelled,
    get sessionCount() {
      return transports.size;
    },
    close: () =>
      new Promise((resolve) => {
        for (const transport of transports.values()) void transport.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
