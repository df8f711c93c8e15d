import type { DataStreamEvent } from "@conduit-ai/server-core";
import type { GenerationPart } from "./generation-part.js";

/**
 * One engine part as a wire event (docs/design.md §3): `text-delta` data is `{delta}`, `tool-call`
 * `{id, name, arguments}`, `tool-result` `{id, name, result}`, `finish` `{reason, usage}`, `error` `{code, message}`.
 */
export function toStreamEvent(part: GenerationPart): DataStreamEvent {
  const timestamp = Date.now();
  switch (part.type) {
    case "text-start":
    case "text-end":
      return { type: part.type, id: part.id, timestamp, data: { id: part.id } };
    case "text-delta":
      return { type: "text-delta", id: part.id, timestamp, data: { delta: part.delta } };
    case "tool-call":
      return { type: "tool-call", id: part.call.id, timestamp, data: part.call };
    case "tool-result":
      return { type: "tool-result", id: part.result.id, timestamp, data: part.result };
    case "finish":
      return { type: "finish", timestamp, data: { reason: part.reason, usage: part.usage } };
    case "error": {
      const retryAfter = part.error.retryAfterMs === undefined ? {} : { retryAfter: Math.ceil(part.error.retryAfterMs / 1000) };
      return { type: "error", timestamp, data: { code: part.error.code, message: part.error.message, ...retryAfter } };
    }
  }
}
