/**
 * @conduit-ai/streaming — `DataStreamEvent` writers (SSE, NDJSON, web streams) with
 * backpressure, SSE message formatting and stream redaction. Built on the core's
 * encoder (`@conduit-ai/server-core`), so a returned stream is served the same way on every adapter.
 */
export { AsyncQueue } from "./async-queue.js";
export {
  type DataStreamSink,
  DataStreamWriter,
  type DataStreamWriterOptions,
  type StreamErrorInput,
  type ToolCallInput,
  type ToolResultInput,
} from "./data-stream-writer.js";
export { DataStreamResponse, type FinishInput, type StreamResponseOptions, createStreamResponse } from "./data-stream-response.js";
export { type SSEEventOptions, formatSseComment, formatSseMessage } from "./sse-message.js";
export { createStreamRedactionMiddleware } from "./stream-redaction-middleware.js";
export { WebStreamWriter, type WebStreamWriterOptions, createWebStreamWriter } from "./web-stream-writer.js";
export type { DataStreamEvent } from "@conduit-ai/server-core";
export {
  DEFAULT_REDACTED_FIELDS,
  type StreamFormat,
  encodeNdjsonLine,
  encodeSseFrame,
  negotiateStreamFormat,
  redactStreamEvent,
  streamHeaders,
} from "@conduit-ai/server-core/web";
