import type { TraceSpan } from "@conduit-ai/server-core";
import type { TapOutcome } from "../../relay/body-tap.js";
import type { RelayMessages } from "./messages-relay.js";

/**
 * Sends one Messages API request through the account pool: account choice, retries and
 * failover included. `body` goes upstream byte for byte; the answer is upstream's (status,
 * headers, body as sent) or, when no account can serve, an Anthropic-shaped error.
 * A surface mounted on its own (`createChatCompletionsRoute({ sendMessages })`) sends Claude
 * models through exactly this; a proxy's surfaces use the relay behind it (`relayMessages`).
 */
export type SendMessages = (
  body: Uint8Array,
  init: {
    headers: Record<string, string>;
    signal: AbortSignal;
    /** The query string of the client's request (`?beta=true`), forwarded as is. */
    search?: string;
    /** Called once with the final answer's status and the usage upstream reported (a gate settles here). */
    onAnswered?: (status: number, outcome: TapOutcome) => void;
    /** The parent of the call's spans when tracing is on. */
    traceSpan?: TraceSpan;
  },
) => Promise<Response>;

/** A WHATWG body as chunks to pull; returning early cancels it (and the request behind it). */
function chunksOfStream(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      const reader = stream.getReader();
      return {
        next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
        return: async () => {
          await reader.cancel().catch(() => undefined);
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/**
 * A `SendMessages` as the pool's relay (what the Messages target sends through), for a surface
 * mounted with a `sendMessages` of its own rather than a proxy's relay.
 *
 * @example
 * const target = createAnthropicTarget(relayMessagesOf(sendMessages));
 */
export function relayMessagesOf(sendMessages: SendMessages): RelayMessages {
  return async (body, request) => {
    const response = await sendMessages(body, request);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { status: response.status, headers, body: response.body ? chunksOfStream(response.body) : null };
  };
}
