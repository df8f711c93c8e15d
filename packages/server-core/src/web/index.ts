/**
 * `@conduit-ai/server-core/web`: the web-standard side — the `Request`/`Response` bridge, the one SSE
 * framer (`formatSseFrame`, `formatSseComment`) and NDJSON framer (`formatNdjsonLine`), and the stream encoders (SSE, NDJSON, the AI SDK UI message stream) with
 * their redaction hook.
 */
export { handleWebRequest, toWebResponse } from "./web-bridge.js";
export type { WebRequestOptions } from "./web-bridge.js";
export { type SseFrame, formatSseComment, formatSseFrame } from "../core/streams/sse-frame.js";
export { formatNdjsonLine } from "../core/streams/ndjson-line.js";
export {
  type EncodeStreamOptions,
  type EventStreamFormat,
  negotiateEventStreamFormat,
  type StreamFormat,
  encodeEventStream,
  encodeKeepAlive,
  encodeNdjsonLine,
  encodeSseFrame,
  negotiateStreamFormat,
  streamHeaders,
  toStreamEvent,
} from "../core/streams/stream-encoding.js";
export {
  DEFAULT_REDACTED_FIELDS,
  DEFAULT_REDACTION_PLACEHOLDER,
  type StreamEventTransform,
  addStreamEventTransform,
  createStreamRedactor,
  redactStreamEvent,
  streamEventTransformFor,
} from "../core/streams/stream-redaction.js";
export {
  UI_MESSAGE_STREAM_FORMAT,
  UI_MESSAGE_STREAM_HEADERS,
  UI_MESSAGE_STREAM_REQUEST_HEADER,
  UiMessageStreamEncoder,
  fromUiChatRequest,
  wantsUiMessageStream,
} from "../core/streams/ui-message-stream.js";
export { STREAM_KEEP_ALIVE_MS } from "../core/streams/event-stream-response.js";
