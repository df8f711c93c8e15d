import {
  type DataStreamEvent,
  type GenerateRequest,
  type Runtime,
  ServerValidationError,
  type ZodIssueLike,
  formatZodIssues,
  wrapError,
} from "@conduit-ai/server-core";
import { generateRequestSchema, namedToolExecuteRequestSchema } from "@conduit-ai/server-core/openapi";
import { toStreamEvent } from "@conduit-ai/server-core/web";
import type { ClientMessage } from "./message-protocol.js";
import type { WebSocketConnection } from "./websocket-connection.js";
import { toAuthenticatedUser } from "./websocket-user.js";
import type { ConduitWebSocketServer } from "./websocket-server.js";

interface SafeParser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: ZodIssueLike[] } };
}

/** Validates a payload with the same zod schema the HTTP route uses; a bad payload → `VALIDATION_ERROR`. */
function parsePayload<T>(schema: SafeParser<T>, payload: unknown): T {
  const result = schema.safeParse(payload ?? {});
  if (result.success) return result.data;
  throw new ServerValidationError("Invalid message payload", formatZodIssues(result.error, { rootField: "payload" }));
}

function callContext(message: ClientMessage, connection: WebSocketConnection, signal: AbortSignal) {
  return {
    ...(message.id ? { requestId: message.id } : {}),
    ...(connection.user ? { user: toAuthenticatedUser(connection.user) } : {}),
    signal,
  };
}

/** Streams the runtime's events as `stream-event` messages; the last is always `finish` or `error`. */
async function streamToSocket(runtime: Runtime, message: ClientMessage, connection: WebSocketConnection): Promise<void> {
  const request = parsePayload(generateRequestSchema() as SafeParser<GenerateRequest>, message.payload);
  const operation = connection.startOperation(message.id);
  const id = message.id ?? null;
  let last: DataStreamEvent["type"] | undefined;
  try {
    for await (const item of runtime.stream(request, callContext(message, connection, operation.signal))) {
      if (operation.signal.aborted) break;
      const event = toStreamEvent(item);
      last = event.type;
      await connection.send({ type: "stream-event", id, payload: event });
      if (last === "finish" || last === "error") break;
    }
    if (last !== "finish" && last !== "error") {
      const reason = operation.signal.aborted ? "cancelled" : "stop";
      await connection.send({ type: "stream-event", id, payload: { type: "finish", timestamp: Date.now(), data: { reason } } });
    }
  } catch (error) {
    if (operation.signal.aborted) {
      await connection.send({
        type: "stream-event",
        id,
        payload: { type: "finish", timestamp: Date.now(), data: { reason: "cancelled" } },
      });
      return;
    }
    const wrapped = wrapError(error);
    await connection.send({
      type: "stream-event",
      id,
      payload: { type: "error", timestamp: Date.now(), data: { code: wrapped.code, message: wrapped.message } },
    });
  } finally {
    operation.end();
  }
}

/**
 * The standard agent handler: `generate` → one `result`, `stream` → `stream-event`s
 * ending with `finish` (a `cancel` with the same id or a disconnect aborts the runtime
 * call through its signal), `tool_call` `{name, arguments}` → `tool-result`.
 *
 * @example
 * registerAgentHandlers(attachWebSocket(adapter), runtime);
 */
export function registerAgentHandlers(surface: ConduitWebSocketServer, runtime: Runtime): ConduitWebSocketServer {
  surface.on("generate", async (message, connection) => {
    const request = parsePayload(generateRequestSchema() as SafeParser<GenerateRequest>, message.payload);
    const operation = connection.startOperation(message.id);
    try {
      const result = await runtime.generate(request, callContext(message, connection, operation.signal));
      await connection.send({ type: "result", id: message.id ?? null, payload: result });
    } finally {
      operation.end();
    }
  });
  surface.on("stream", (message, connection) => streamToSocket(runtime, message, connection));
  surface.on("tool_call", async (message, connection) => {
    type ToolCall = { name: string; arguments?: Record<string, unknown>; confirmed?: boolean };
    const call = parsePayload(namedToolExecuteRequestSchema() as SafeParser<ToolCall>, message.payload);
    const operation = connection.startOperation(message.id);
    try {
      const result = await runtime.tools.execute(call.name, call.arguments ?? {}, {
        ...callContext(message, connection, operation.signal),
        ...(call.confirmed === undefined ? {} : { confirmed: call.confirmed }),
      });
      await connection.send({ type: "tool-result", id: message.id ?? null, payload: result });
    } finally {
      operation.end();
    }
  });
  return surface;
}
