import { randomUUID } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { type SeenTraceContext, createFixtureServer } from "./fixture-server.mjs";

export interface McpHttpFixture {
  /** `http://127.0.0.1:<port>/mcp` (Streamable HTTP), or `…/sse` (the older HTTP+SSE transport). */
  url: string;
  port: number;
  /** Every request's method, Authorization header (or "none") and traceparent, in order. */
  readonly requests: Array<{ method: string; authorization: string; traceparent?: string | undefined }>;
  /** Tool calls the server saw cancelled (their request ids). */
  readonly cancelled: string[];
  /** The trace context of each `shout` call, in order. */
  readonly traceContexts: SeenTraceContext[];
  /** Open upstream sessions. */
  readonly sessionCount: number;
  close(): Promise<void>;
}

export interface McpHttpFixtureOptions {
  /** Refuses a request with 401 when it returns false. */
  authorize?: (authorization: string | undefined) => boolean | Promise<boolean>;
  /** The server's name in its `initialize` answer (default "fixture-http"). */
  name?: string;
  /** The port to listen on (default: a free one); a test restarts a server on its old port with it. */
  port?: number;
  /** `sse`: the older HTTP+SSE transport (`GET /sse`, `POST /messages?sessionId=`). Default Streamable HTTP. */
  transport?: "streamable-http" | "sse";
}

/**
 * The MCP fixture server (`fixture-server.mjs`) over Streamable HTTP (or the older HTTP+SSE
 * transport) on loopback, one SDK server
 * per session (the SDK's stateful mode); a request naming an unknown session gets 404, as the
 * MCP specification asks, so a client starts a new one.
 *
 * @example
 * const upstream = await startMcpHttpFixture({ authorize: (header) => header === "Bearer upstream-secret" });
 * createRuntime({ mcpServers: { remote: { url: upstream.url } } });
 * const legacy = await startMcpHttpFixture({ transport: "sse" });
 */
export async function startMcpHttpFixture(options: McpHttpFixtureOptions = {}): Promise<McpHttpFixture> {
  const transports = new Map<string, StreamableHTTPServerTransport | SSEServerTransport>();
  const requests: McpHttpFixture["requests"] = [];
  const seen = { cancelled: [] as string[], traceContexts: [] as SeenTraceContext[] };
  const serve = (transport: StreamableHTTPServerTransport | SSEServerTransport) =>
    createFixtureServer({ name: options.name ?? "fixture-http", seen }).connect(transport);
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
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${options.transport === "sse" ? "sse" : "mcp"}`,
    port,
    requests,
    cancelled: seen.cancelled,
    traceContexts: seen.traceContexts,
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
