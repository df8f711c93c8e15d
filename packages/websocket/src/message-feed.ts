import { randomUUID } from "node:crypto";
import type { RuntimeCallContext, TokenUsage } from "@conduit-ai/server-core";
import { type RequestFeed, SAFE_REQUEST_ID, callGuardrailHitsOf, guardrailHitLabel } from "@conduit-ai/server-core/internal";
import type { ClientMessage } from "./message-protocol.js";
import type { WebSocketConnection } from "./websocket-connection.js";

/** How one message's work ended, as far as its live feed row tells: never content. */
export interface MessageOutcome {
  status: number;
  model?: string;
  usage?: Pick<TokenUsage, "inputTokens" | "outputTokens">;
}

/** Reports one finished message (`generate`, `stream`, `tool_call`) that started work. */
export type MessageFeedReport = (
  message: ClientMessage,
  connection: WebSocketConnection,
  context: RuntimeCallContext,
  startedAt: number,
  outcome: MessageOutcome,
) => void;

const text = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : undefined);

/**
 * Each message that started work becomes one row of the server's live feed (the operator console's
 * Live page), as an HTTP request does: method `WS`, route `<path> <type>`, the key (`metadata.key`
 * and `metadata.keyName` of the connection's user, as the virtual-key auth sets them), the model and
 * tokens, and the call's guardrail hits. Nothing when no feed is installed (no console).
 *
 * @example
 * const report = messageFeedReporter(() => requestFeedOf(adapter), "/ws");
 */
export function messageFeedReporter(feedOf: () => RequestFeed | undefined, path: string): MessageFeedReport {
  return (message, connection, context, startedAt, outcome) => {
    const feed = feedOf();
    if (!feed) return;
    const metadata = (connection.user?.metadata ?? {}) as Record<string, unknown>;
    const key = text(metadata.key);
    const keyName = text(metadata.keyName);
    const hits = callGuardrailHitsOf(context);
    const now = performance.now();
    feed.publish({
      time: new Date(Date.now() - (now - startedAt)).toISOString(),
      // A client's message id only when it is a safe one (it is the client's text).
      requestId: message.id !== undefined && SAFE_REQUEST_ID.test(message.id) ? message.id : randomUUID(),
      method: "WS",
      route: `${path} ${message.type}`,
      status: outcome.status,
      latencyMs: Math.round((now - startedAt) * 10) / 10,
      ...(key ? { key } : {}),
      ...(keyName ? { keyName } : {}),
      ...(outcome.model ? { model: outcome.model } : {}),
      ...(outcome.usage ? { inputTokens: outcome.usage.inputTokens, outputTokens: outcome.usage.outputTokens } : {}),
      ...(hits ? { guardrails: hits.map(guardrailHitLabel) } : {}),
    });
  };
}
