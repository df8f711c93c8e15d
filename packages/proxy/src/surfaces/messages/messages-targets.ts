import { type RawResponse, type Runtime, type RuntimeCallContext, ServerAdapterError, rawResponse } from "@conduit-ai/server-core";
import type { Served } from "../../routing/fallbacks.js";
import { type RouteTarget, isFallbackStatus } from "../../routing/model-table.js";
import type { RelayRequest } from "../../relay/vendor-wire.js";
import { OpenAIWireError } from "../../wire/openai-chat/openai-wire-error.js";
import { resolveRuntimeModel } from "../../targets/runtime/runtime-completion.js";
import { withModel } from "../../wire/anthropic-messages/body-model.js";
import type { RelayMessages } from "../../targets/anthropic/messages-relay.js";
import { parseMessagesBody } from "../../wire/anthropic-messages/messages-request.js";
import { type RuntimeUsage, respondMessagesWithRuntime } from "../../targets/runtime/runtime-messages.js";

/** What one `/v1/messages` attempt needs besides its target. */
export interface MessagesAttempt {
  body: Uint8Array;
  /** The model the body names (its bytes go upstream unchanged when the target is that model). */
  model: string;
  relayMessages: RelayMessages;
  runtime: Runtime | undefined;
  context: () => RuntimeCallContext;
  request: RelayRequest;
  /** A later target exists: an answer it would replace settles nothing. */
  hasFallback: boolean;
  /** A runtime target's answer ended: the usage its provider reported, or undefined (the reservation stands). */
  onRuntimeUsage?: (servedBy: string, usage: RuntimeUsage | undefined) => void;
}

/** A runtime resolution failure as a server error, so the group's writer answers it in Anthropic's shape. */
function asServerError(error: unknown): unknown {
  if (!(error instanceof OpenAIWireError)) return error;
  return new ServerAdapterError(error.message, { statusCode: error.status, code: error.code ?? "MODEL_NOT_FOUND" });
}

/**
 * One target of a Messages API call: `anthropic/<model>` through the pool (the body byte for byte,
 * or with the target's `model` when an alias named it), or a runtime provider answering in the
 * Messages wire format.
 */
export async function serveMessagesTarget(target: RouteTarget, attempt: MessagesAttempt): Promise<Served> {
  if (target.kind === "anthropic") {
    const body = target.model === attempt.model ? attempt.body : withModel(attempt.body, target.model);
    const onAnswered = attempt.request.onAnswered;
    const reply = await attempt.relayMessages(body, {
      ...attempt.request,
      ...(onAnswered
        ? {
            // An answer the next target replaces is not the call's usage.
            onAnswered: (status, outcome) => {
              if (!(attempt.hasFallback && isFallbackStatus(status))) onAnswered(status, outcome);
            },
          }
        : {}),
    });
    const response: RawResponse = rawResponse(reply.body, { status: reply.status, headers: reply.headers });
    return { response, servedBy: target.name };
  }
  if (!attempt.runtime) throw new ServerAdapterError(`model: ${target.model}`, { statusCode: 404, code: "MODEL_NOT_FOUND" });
  let resolved: { provider: string; model: string };
  try {
    resolved = await resolveRuntimeModel(attempt.runtime, target.model);
  } catch (error) {
    throw asServerError(error);
  }
  const servedBy = `${resolved.provider}/${resolved.model}`;
  const response = await respondMessagesWithRuntime(
    attempt.runtime,
    parseMessagesBody(attempt.body),
    resolved,
    attempt.context(),
    (usage) => attempt.onRuntimeUsage?.(servedBy, usage),
  );
  return { response, servedBy };
}
