import { randomUUID } from "node:crypto";
import { type IncomingMessage, STATUS_CODES, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { errorBodyJson, errorResponse } from "../core/errors/envelope.js";
import type { RequestHandler } from "../core/pipeline/request-handler.js";
import { ErrorCode } from "../errors/codes.js";
import { ServerAdapterError } from "../errors/server-adapter-error.js";
import { ServerValidationError, TimeoutError, methodNotAllowed } from "../errors/server-errors.js";

/** Node's parser errors (llhttp `HPE_*` codes and Node's own) as the envelope's error. */
function errorForParserFailure(code: string | undefined): ServerAdapterError {
  if (code === "HPE_HEADER_OVERFLOW") {
    return new ServerAdapterError("Request header fields too large", {
      code: ErrorCode.HEADERS_TOO_LARGE,
      statusCode: 431,
      category: "VALIDATION",
      severity: "LOW",
    });
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT" || code === "ERR_HTTP_HEADERS_TIMEOUT") return new TimeoutError("Request not received in time");
  // Malformed request line, unknown method, smuggling attempts (Content-Length with
  // Transfer-Encoding, conflicting lengths), bad header bytes: the request cannot be trusted.
  return new ServerValidationError("Malformed HTTP request", [{ field: "request", message: code ?? "unparseable" }]);
}

/** One complete HTTP/1.1 answer in the envelope, for a socket no framework is serving. */
export function rawErrorResponse(error: ServerAdapterError, extraHeaders: Record<string, string> = {}): string {
  const requestId = `req-${randomUUID()}`;
  const { status, headers, body } = errorResponse(error, requestId);
  const json = errorBodyJson(body);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    `Content-Type: ${headers["content-type"]}`,
    `Content-Length: ${Buffer.byteLength(json)}`,
    "Connection: close",
    `X-Request-Id: ${requestId}`,
    "X-Content-Type-Options: nosniff",
    ...(headers["retry-after"] === undefined ? [] : [`Retry-After: ${headers["retry-after"]}`]),
    ...Object.entries(extraHeaders)
      // Framing headers are this function's to write.
      .filter(([name]) => !/^(content-length|content-type|connection|transfer-encoding)$/i.test(name))
      .map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join("\r\n")}\r\n\r\n${json}`;
}

function answerOnSocket(socket: Duplex, error: ServerAdapterError, extraHeaders?: Record<string, string>): void {
  try {
    if (!socket.writable) return void socket.destroy();
    socket.once("finish", () => socket.destroy());
    socket.end(rawErrorResponse(error, extraHeaders));
  } catch {
    socket.destroy();
  }
}

/**
 * What reaches a Node server but never its framework, answered the same way on every
 * adapter, in the envelope wherever a body can be sent:
 * - parser failures (`clientError`): malformed request lines, bad methods, `Content-Length`
 *   with `Transfer-Encoding` or twice, bad header bytes → 400; oversized headers → 431;
 *   request timeouts → 408. Replaces the framework's own handler (Fastify installs one).
 * - `CONNECT` (no proxying here) → 405.
 * - `Expect: 100-continue` with a declared body over `bodyParser.limit`: no `100 Continue`,
 *   so the client never sends it; the 413 comes from the core.
 * - An HTTP/1.1 request without `Host` reaches the core (which answers the 400 envelope)
 *   instead of Node's bare 400.
 *
 * @example
 * const server = createServer(listener);
 * guardNodeServer(server, adapter.handler);
 */
export function guardNodeServer(server: Server, handler: Pick<RequestHandler, "config" | "emitSafe">): void {
  (server as Server & { requireHostHeader?: boolean }).requireHostHeader = false;
  server.removeAllListeners("clientError");
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Node's own rule: nothing to say to a socket already gone or mid-answer.
    const inProgress = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || inProgress?.headersSent) {
      socket.destroy();
      return;
    }
    answerOnSocket(socket, errorForParserFailure(error.code));
  });
  if (server.listenerCount("connect") === 0) {
    server.on("connect", (request: IncomingMessage, socket: Duplex) => {
      socket.on("error", () => socket.destroy());
      answerOnSocket(socket, methodNotAllowed("CONNECT", request.url ?? "", []), { Allow: "GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS" });
    });
  }
  server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    const declared = Number(request.headers["content-length"]);
    if (!(Number.isFinite(declared) && declared > handler.config.bodyParser.limit)) response.writeContinue();
    server.emit("request", request, response);
  });
}
