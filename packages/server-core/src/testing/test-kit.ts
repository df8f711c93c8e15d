import type { ServerAdapterConfig } from "../contracts/config.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import type { RouteDefinition } from "../contracts/route.js";
import type { Runtime } from "../contracts/runtime.js";
import { type AdapterOptions, BaseServerAdapter } from "../adapter/base-adapter.js";
import type { OutgoingResponse } from "../core/pipeline/request-handler.js";

/** An adapter without a framework, for unit tests that drive the core's pipeline without a socket. */
class SocketlessAdapter extends BaseServerAdapter<null> {
  readonly framework = "hono" as const;
  protected createApp(): null {
    return null;
  }
  protected listen(): never {
    throw new Error("The socketless test adapter never listens");
  }
}

/** What `createTestApp` builds the pipeline from. */
export interface TestAppSetup extends AdapterOptions {
  middleware?: MiddlewareDefinition[];
  routes?: RouteDefinition[];
  config?: ServerAdapterConfig;
  /** The runtime route groups call (`registerAllRoutes(adapter)` in `setup`). */
  runtime?: Runtime;
  /** Registers route groups, middleware or hooks on the adapter before the first request. */
  setup?: (adapter: BaseServerAdapter<null>) => void;
}

/** A socket-free server: `adapter` to register on, `request` to call it. */
export interface TestApp {
  adapter: BaseServerAdapter<null>;
  request(input: TestRequest): Promise<TestResponse>;
}

export interface TestRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  clientAddress?: string;
  signal?: AbortSignal;
}

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[]>;
  /** The body as text (streams are read to the end). */
  text: string;
  bytes: Buffer;
  json<T = Record<string, unknown>>(): T;
  streaming: boolean;
}

/**
 * The whole pipeline without a socket (Hono's `app.request()` lesson): the given middleware,
 * routes and route groups, no default stack unless asked; `request()` answers exactly what a
 * server would send, streams read to the end.
 *
 * @example
 * import { createTestApp } from "@conduit-ai/server-core/testing";
 * const app = createTestApp({ middleware: [createTimingMiddleware()], routes: [{ method: "GET", path: "/x", handler: () => 1 }] });
 * const response = await app.request({ url: "/api/x" });
 * expect(response.json()).toMatchObject({ data: 1 });
 */
export function createTestApp(setup: TestAppSetup = {}): TestApp {
  // Quiet by default: the core would otherwise log expected 5xx test errors to stderr.
  const adapter = new SocketlessAdapter(
    setup.runtime,
    { logging: { enabled: false }, ...setup.config },
    { defaultMiddleware: setup.defaultMiddleware ?? false },
  );
  for (const middleware of setup.middleware ?? []) adapter.registerMiddleware(middleware);
  for (const route of setup.routes ?? []) adapter.registerRoute(route);
  setup.setup?.(adapter);
  const request = async (input: TestRequest): Promise<TestResponse> => {
    const body = input.body;
    const outgoing: OutgoingResponse = await adapter.handler.dispatch({
      method: input.method ?? "GET",
      url: input.url,
      headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...lowerCase(input.headers ?? {}) },
      clientAddress: input.clientAddress ?? "127.0.0.1",
      body: body === undefined ? { kind: "none" } : { kind: "stream", stream: toStream(body) },
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const bytes = await readBody(outgoing.body);
    outgoing.done();
    return {
      status: outgoing.status,
      headers: outgoing.headers,
      bytes,
      text: bytes.toString("utf8"),
      json: <T>() => JSON.parse(bytes.toString("utf8")) as T,
      streaming: outgoing.streaming,
    };
  };
  return { adapter, request };
}

function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
}

async function* toStream(text: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(text);
}

async function readBody(body: OutgoingResponse["body"]): Promise<Buffer> {
  if (body === null) return Buffer.alloc(0);
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
