import type { TraceSpan } from "@conduit-ai/server-core";
import type { TapOutcome } from "../../relay/body-tap.js";

/**
 * Sends one Messages API request through the account pool: account choice, retries and
 * failover included. `body` goes upstream byte for byte; the answer is upstream's (status,
 * headers, body as sent) or, when no account can serve, an Anthropic-shaped error.
 * The chat-completions surface loops Claude models back through exactly this.
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
