import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { RegisteredRoute } from "../contracts/route.js";
import type { BodySource } from "../core/body/body-parser.js";
import { lastResortErrorJson } from "../core/errors/envelope.js";
import type { IncomingRequest, OutgoingResponse, RequestHandler } from "../core/pipeline/request-handler.js";
import { lingerBeforeClose } from "./lingering-close.js";

export interface NodeRequestOptions {
  /**
   * The body as the framework holds it (`req.body`, `ctx.request.body`). Used only when a
   * user's own body parser already consumed the stream; otherwise the core reads the raw
   * stream with its own limits.
   */
  frameworkBody?: unknown;
  /** The URL as the client sent it when the framework rewrote `req.url` (Express sub-apps). */
  originalUrl?: string;
}

/**
 * An `IncomingMessage` as the core's request; its body is read lazily, only if a handler
 * needs it. Pass `response` to have the core notified when the client disconnects.
 */
export function toIncomingRequest(request: IncomingMessage, response?: ServerResponse, options: NodeRequestOptions = {}): IncomingRequest {
  let body: BodySource;
  if (request.readableEnded && options.frameworkBody !== undefined) body = { kind: "parsed", value: options.frameworkBody };
  else if (request.readableEnded) body = { kind: "none" };
  else body = { kind: "stream", stream: request };
  const incoming: IncomingRequest = {
    method: request.method ?? "GET",
    url: options.originalUrl ?? request.url ?? "/",
    headers: request.headers,
    clientAddress: request.socket?.remoteAddress ?? "",
    httpVersion: request.httpVersion,
    body,
  };
  if (response) incoming.watchDisconnect = (listener) => watchDisconnect(response, listener);
  return incoming;
}

/**
 * Calls `listener` when the client goes away before the response finished (at once when it
 * already has); returns the removal.
 */
export function watchDisconnect(response: ServerResponse, listener: () => void): () => void {
  if (response.closed) {
    if (!response.writableFinished) listener();
    return () => {};
  }
  const onClose = () => {
    if (!response.writableFinished) listener();
  };
  response.once("close", onClose);
  return () => response.off("close", onClose);
}

/**
 * Writes the core's response to a Node `ServerResponse`: several `Set-Cookie` headers,
 * streams written chunk by chunk waiting for `drain` (backpressure) and coalesced per
 * event-loop turn, `flush()` after each chunk when a compression layer provides it, and
 * the stream stopped when the client disconnects.
 */
export async function writeNodeResponse(response: ServerResponse, outgoing: OutgoingResponse): Promise<void> {
  try {
    const body = outgoing.body;
    const complete = typeof body === "string" || body instanceof Uint8Array;
    if (!response.headersSent) {
      const headers = outgoing.headers;
      // Headers given to writeHead after the body's length is known: one pass over them, no
      // setHeader per header, and a Content-Length instead of chunked encoding.
      if (complete && headers["content-length"] === undefined) headers["content-length"] = String(Buffer.byteLength(body));
      response.writeHead(outgoing.status, headers as OutgoingHttpHeaders);
    }
    if (body === null) {
      if (outgoing.linger) lingerBeforeClose(response, outgoing.linger);
      response.end();
      return;
    }
    if (outgoing.linger) lingerBeforeClose(response, outgoing.linger);
    if (complete) {
      response.end(body);
      return;
    }
    response.flushHeaders();
    // Chunks produced in one turn of the event loop (a burst of tokens) leave in one write:
    // corked on the first, uncorked on the next turn, or at once when the socket pushes back.
    let corked = false;
    const uncork = () => {
      if (!corked) return;
      corked = false;
      response.uncork();
    };
    for await (const chunk of body) {
      if (response.destroyed) break;
      if (!corked) {
        corked = true;
        response.cork();
        setImmediate(uncork);
      }
      const canContinue = response.write(chunk);
      (response as ServerResponse & { flush?: () => void }).flush?.();
      if (!canContinue) {
        uncork();
        await waitForDrain(response);
      }
    }
    uncork();
    if (!response.destroyed) response.end();
  } catch {
    // Headers the wire refuses (a handler's header with a line break, say): the constant 500
    // envelope. After the headers, the client went away or the source failed: nothing more to send.
    if (!response.headersSent && !response.destroyed) writeLastResort(response, outgoing.headers["x-request-id"]);
    else response.destroy();
  } finally {
    outgoing.done();
  }
}

function waitForDrain(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const finish = () => {
      response.off("drain", finish);
      response.off("close", finish);
      resolve();
    };
    response.on("drain", finish);
    response.on("close", finish);
  });
}

/**
 * The whole bridge for Express, Fastify and Koa: convert, dispatch, write.
 *
 * @example
 * expressApp.get(route.fullPath, (req, res) => handleNodeRequest(adapter.handler, req, res, route));
 */
export async function handleNodeRequest(
  handler: RequestHandler,
  request: IncomingMessage,
  response: ServerResponse,
  route?: RegisteredRoute,
  options: NodeRequestOptions = {},
): Promise<void> {
  try {
    // A close listener rather than an AbortController per request: the core makes its controller only when used.
    const outgoing = await handler.dispatch(toIncomingRequest(request, response, options), route);
    await writeNodeResponse(response, outgoing);
  } catch {
    // Neither can fail by design; should one, the framework must still see no rejection.
    if (!response.headersSent && !response.destroyed) writeLastResort(response, undefined);
  }
}

/** The constant 500 envelope, written with no header that could be refused. */
function writeLastResort(response: ServerResponse, requestId: string | string[] | undefined): void {
  try {
    const id = typeof requestId === "string" ? requestId : "unknown";
    const body = lastResortErrorJson(id);
    for (const name of response.getHeaderNames()) response.removeHeader(name);
    response.writeHead(500, {
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(body)),
      "x-request-id": /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : "unknown",
    });
    response.end(body);
  } catch {
    response.destroy();
  }
}
