import { type IncomingMessage, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { readBodyText as readBody } from "@conduit-ai/fakes";

/** One request the fake received, as the vendor would see it. */
export interface ReceivedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  /** Raw body text ("" when none). */
  text: string;
  /** The body parsed as JSON, or as a form for `application/x-www-form-urlencoded`; undefined when empty. */
  body: unknown;
}

/** What a route answers: a status, a JSON body (or raw text) and extra headers. */
export interface FakeAnswer {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

export interface AdminApiFake {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every request so far, oldest first. */
  received: ReceivedRequest[];
  /** Requests matching a method and path. */
  requests(method: string, path: string): ReceivedRequest[];
  /** Answer every request with this status until called with undefined (outage / auth failure simulation). */
  failWith(status: number | undefined, json?: unknown): void;
  close(): Promise<void>;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === "") return undefined;
  if (contentType?.startsWith("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A local HTTP server standing in for a vendor's admin API (Auth0 Management API, Keycloak
 * Admin REST, …): every request is recorded, `route` answers it in the vendor's wire format;
 * an unrouted request gets 404 with `notFound` as body.
 *
 * @example
 * const fake = await startAdminApiFake((request) => request.path === "/v1/users/u1" ? { json: { id: "u1" } } : undefined);
 */
export async function startAdminApiFake(
  route: (request: ReceivedRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>,
  notFound: unknown = { error: "not_found" },
): Promise<AdminApiFake> {
  const received: ReceivedRequest[] = [];
  let failure: { status: number; json: unknown } | undefined;
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://fake");
    const text = await readBody(request);
    const entry: ReceivedRequest = {
      method: request.method ?? "GET",
      path: decodeURIComponent(url.pathname),
      query: url.searchParams,
      headers: request.headers,
      text,
      body: parseBody(text, request.headers["content-type"]),
    };
    received.push(entry);
    const answer = failure ? { status: failure.status, json: failure.json } : ((await route(entry)) ?? { status: 404, json: notFound });
    const payload = answer.text ?? (answer.json === undefined ? "" : JSON.stringify(answer.json));
    response.writeHead(answer.status ?? 200, {
      ...(answer.text === undefined && answer.json !== undefined ? { "content-type": "application/json" } : {}),
      ...answer.headers,
    });
    response.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    requests: (method, path) => received.filter((entry) => entry.method === method && entry.path === path),
    failWith(status, json = { error: "failure" }) {
      failure = status === undefined ? undefined : { status, json };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
