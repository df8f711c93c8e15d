import type { RegisteredRoute } from "../contracts/route.js";
import { lastResortErrorJson } from "../core/errors/envelope.js";
import type { OutgoingResponse, RequestHandler } from "../core/pipeline/request-handler.js";

const encoder = new TextEncoder();

/** The core's response as a web `Response`; streams become a pull-based `ReadableStream` (backpressure preserved). */
export function toWebResponse(outgoing: OutgoingResponse, finishedHook?: (done: () => void) => void): Response {
  finishedHook?.(outgoing.done);
  const headers = new Headers();
  try {
    for (const [name, value] of Object.entries(outgoing.headers)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else headers.set(name, value);
    }
  } catch {
    // A header the web platform refuses: the constant 500 envelope instead of a rejection.
    if (!finishedHook) outgoing.done();
    const requestId = outgoing.headers["x-request-id"];
    const body = lastResortErrorJson(typeof requestId === "string" ? requestId : "unknown");
    return new Response(body, { status: 500, headers: { "content-type": "application/json; charset=utf-8" } });
  }
  const body = outgoing.body;
  if (body === null || typeof body === "string" || body instanceof Uint8Array) {
    // Without a write-completion hook (see `WebRequestOptions.onWritten`), handing the body over is the end.
    if (!finishedHook) outgoing.done();
    return new Response(body as BodyInit | null, { status: outgoing.status, headers });
  }
  const iterator = body[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) {
            controller.close();
            outgoing.done();
            return;
          }
          controller.enqueue(typeof next.value === "string" ? encoder.encode(next.value) : next.value);
        } catch (error) {
          controller.error(error);
          outgoing.done();
        }
      },
      async cancel() {
        outgoing.done();
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, { status: outgoing.status, headers });
}

export interface WebRequestOptions {
  clientAddress: string;
  /** Fires on client disconnect when the runtime knows it (Node servers); `request.signal` otherwise. */
  signal?: AbortSignal;
  /** Registers a callback for when the response is fully written (Node: the ServerResponse's `close`). */
  onWritten?: (done: () => void) => void;
  /** Where a host app mounted Conduit (Hono `app.route("/ai", …)`): removed from the path the core matches. */
  pathPrefix?: string;
}

/**
 * The bridge for web-standard frameworks (Hono): a `Request` in, a `Response` out.
 *
 * @example
 * app.on(route.method, route.fullPath, (c) => handleWebRequest(adapter.handler, c.req.raw, { clientAddress }, route));
 */
export async function handleWebRequest(
  handler: RequestHandler,
  request: Request,
  options: WebRequestOptions,
  route?: RegisteredRoute,
): Promise<Response> {
  const url = request.url;
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  let path = pathStart === -1 ? "/" : url.slice(pathStart);
  const prefix = options.pathPrefix;
  if (prefix && prefix !== "/" && path.startsWith(prefix)) path = path.slice(prefix.length).replace(/^(?=[^/]|$)/, "/");
  const headers = Object.create(null) as Record<string, string>;
  request.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const outgoing = await handler.dispatch(
    {
      method: request.method,
      url: path,
      headers,
      clientAddress: options.clientAddress,
      body: request.body ? { kind: "stream", stream: request.body } : { kind: "none" },
      signal: options.signal ?? request.signal,
    },
    route,
  );
  return toWebResponse(outgoing, options.onWritten);
}
