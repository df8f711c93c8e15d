import {
  type DataStreamEvent,
  type GenerateRequest,
  type Runtime,
  type RuntimeCallContext,
  type TokenUsage,
  ServerValidationError,
  type ZodIssueLike,
  formatZodIssues,
  wrapError,
} from "@conduit-ai/server-core";
import { generateRequestSchema, namedToolExecuteRequestSchema } from "@conduit-ai/server-core/openapi";
import { toStreamEvent } from "@conduit-ai/server-core/web";
import type { MessageFeedReport, MessageOutcome } from "./message-feed.js";
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

function callContext(message: ClientMessage, connection: WebSocketConnection, signal: AbortSignal): RuntimeCallContext {
  return {
    ...(message.id ? { requestId: message.id } : {}),
    ...(connection.user ? { user: toAuthenticatedUser(connection.user) } : {}),
    signal,
  };
}

/** Streams the runtime's events as `stream-event` messages; the last is always `finish` or `error`. */
async function streamToSocket(
  runtime: Runtime,
  message: ClientMessage,
  connection: WebSocketConnection,
  report: MessageFeedReport,
): Promise<void> {
  const request = parsePayload(generateRequestSchema() as SafeParser<GenerateRequest>, message.payload);
  const operation = connection.startOperation(message.id);
  const context = callContext(message, connection, operation.signal);
  const startedAt = performance.now();
  const id = message.id ?? null;
  let last: DataStreamEvent["type"] | undefined;
  // As an HTTP stream's row: 200 once it streams; a failure before its first event has its own status.
  let status = 200;
  let usage: TokenUsage | undefined;
  try {
    for await (const item of runtime.stream(request, context)) {
      if (operation.signal.aborted) break;
      const event = toStreamEvent(item);
      last = event.type;
      if (last === "finish") usage = (event.data as { usage?: TokenUsage } | undefined)?.usage ?? usage;
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
    if (last === undefined) status = wrapped.statusCode;
    await connection.send({
      type: "stream-event",
      id,
      payload: { type: "error", timestamp: Date.now(), data: { code: wrapped.code, message: wrapped.message } },
    });
  } finally {
    operation.end();
    report(message, connection, context, startedAt, {
      status,
      ...(request.model ? { model: request.model } : {}),
      ...(usage ? { usage } : {}),
    });
  }
}

/** Runs one message's call and reports it to the live feed, its status from its outcome. */
async function reported<T>(
  message: ClientMessage,
  context: RuntimeCallContext,
  connection: WebSocketConnection,
  report: MessageFeedReport,
  call: () => Promise<T>,
  outcomeOf: (result: T) => Omit<MessageOutcome, "status"> = () => ({}),
): Promise<T> {
  const startedAt = performance.now();
  try {
    const result = await call();
    report(message, connection, context, startedAt, { status: 200, ...outcomeOf(result) });
    return result;
  } catch (error) {
    report(message, connection, context, startedAt, { status: wrapError(error).statusCode });
    throw error;
  }
}

/**
 * The standard agent handler: `generate` → one `result`, `stream` → `stream-event`s
 * ending with `finish` (a `cancel` with the same id or a disconnect aborts the runtime
 * call through its signal), `tool_call` `{name, arguments}` → `tool-result`. Each reported to
 * `report` when it ends (the live feed's row: `messageFeedReporter`).
 *
 * @example
 * registerAgentHandlers(attachWebSocket(adapter), runtime);
 */
export function registerAgentHandlers(
  surface: ConduitWebSocketServer,
  runtime: Runtime,
  report: MessageFeedReport = () => undefined,
): ConduitWebSocketServer {
  surface.on("generate", async (message, connection) => {
    const request = parsePayload(generateRequestSchema() as SafeParser<GenerateRequest>, message.payload);
    const operation = connection.startOperation(message.id);
    const context = callContext(message, connection, operation.signal);
    try {
      const result = await reported(
        message,
        context,
        connection,
        report,
        () => runtime.generate(request, context),
        (answer) => ({ model: answer.model, usage: answer.usage }),
      );
      await connection.send({ type: "result", id: message.id ?? null, payload: result });
    } finally {
      operation.end();
    }
  });
  surface.on("stream", (message, connection) => streamToSocket(runtime, message, connection, report));
  surface.on("tool_call", async (message, connection) => {
    type ToolCall = { name: string; arguments?: Record<string, unknown>; confirmed?: boolean };
    const call = parsePayload(namedToolExecuteRequestSchema() as SafeParser<ToolCall>, message.payload);
    const operation = connection.startOperation(message.id);
    const context = {
      ...callContext(message, connection, operation.signal),
      ...(call.confirmed === undefined ? {} : { confirmed: call.confirmed }),
    };
    try {
      const result = await reported(message, context, connection, report, () =>
        runtime.tools.execute(call.name, call.arguments ?? {}, context),
      );
      await connection.send({ type: "tool-result", id: message.id ?? null, payload: result });
    } finally {
      operation.end();
    }
  });
  return surface;
}
