import { type GateUsage, type Runtime, type RuntimeCallContext, type TraceSpan, rawResponse } from "@conduit-ai/server-core";
import type { AdmissionRequest, Admitted } from "../../admission/client-admission.js";
import { reservationUsage, settleFromAnswer } from "../../admission/settlement.js";
import type { Served } from "../../routing/fallbacks.js";
import { primedStream } from "../../routing/primed-runtime.js";
import { type RouteTarget, isFallbackStatus } from "../../routing/model-table.js";
import type { ChatRequest } from "../../wire/openai-chat/chat-request-schema.js";
import { EVENT_STREAM_HEADERS } from "../event-stream.js";
import { completeWithClaude } from "../../targets/anthropic/claude-completion.js";
import { OpenAIWireError } from "../../wire/openai-chat/openai-wire-error.js";
import { generateWithRuntime, resolveRuntimeModel, streamWithRuntime } from "../../targets/runtime/runtime-completion.js";
import type { SendMessages } from "../../targets/anthropic/send-messages.js";

/** What one chat completion attempt needs besides its target. */
export interface ChatAttempt {
  request: ChatRequest;
  sendMessages: SendMessages;
  runtime: Runtime | undefined;
  context: () => RuntimeCallContext;
  signal: AbortSignal;
  /** The parent of a pool call's spans (the request's). */
  traceSpan?: TraceSpan | undefined;
  meta: { id: string; created: number };
  defaultMaxTokens: number;
  dropParams: boolean;
  extraHeaders: Record<string, string>;
  /** The admission to settle, when the call was admitted by the proxy (a gate settles usage). */
  admitted?: Admitted | undefined;
  estimate?: AdmissionRequest | undefined;
  gated: boolean;
  /** A later target exists: an answer it would replace settles nothing. */
  hasFallback: boolean;
}

const modelNotFound = (model: string) =>
  new OpenAIWireError(
    404,
    `The model \`${model}\` does not exist or you do not have access to it.`,
    "invalid_request_error",
    "model",
    "model_not_found",
  );

/** A runtime stream that settles its admission however it ends: usage reported, else the reservation stands. */
async function* settleWhenDone(stream: AsyncIterable<string>, admitted: Admitted, reserved: GateUsage): AsyncGenerator<string> {
  try {
    yield* stream;
  } finally {
    // A no-op when the provider's finish already settled with the real usage.
    admitted.settle(reserved);
  }
}

/**
 * One target of a chat completion: a Claude model translated to the Messages API through the
 * pool, or a runtime provider. Upstream failures are thrown in OpenAI's shape (their status kept),
 * so the caller can try the next target.
 */
export async function serveChatTarget(target: RouteTarget, attempt: ChatAttempt): Promise<Served> {
  const request = { ...attempt.request, model: target.model };
  const { admitted, estimate } = attempt;
  if (target.kind === "anthropic") {
    const settle =
      admitted && estimate && attempt.gated
        ? settleFromAnswer(admitted, estimate, { vendor: "anthropic", model: target.model })
        : undefined;
    const onAnswered: Parameters<SendMessages>[1]["onAnswered"] = settle
      ? (status, outcome) => {
          // An answer the next target replaces is not the call's usage.
          if (!(attempt.hasFallback && isFallbackStatus(status))) settle(status, outcome);
        }
      : undefined;
    const response = await completeWithClaude(attempt.sendMessages, request, {
      ...attempt.meta,
      defaultMaxTokens: attempt.defaultMaxTokens,
      dropParams: attempt.dropParams,
      signal: attempt.signal,
      extraHeaders: attempt.extraHeaders,
      ...(attempt.traceSpan ? { traceSpan: attempt.traceSpan } : {}),
      ...(onAnswered ? { onAnswered } : {}),
    });
    return { response, servedBy: target.name };
  }
  const runtime = attempt.runtime;
  if (!runtime) throw modelNotFound(request.model);
  const resolved = await resolveRuntimeModel(runtime, request.model);
  const servedBy = `${resolved.provider}/${resolved.model}`;
  const started = performance.now();
  const runtimeMeta = {
    ...attempt.meta,
    ...(admitted
      ? {
          onUsage: (usage: { inputTokens: number; outputTokens: number }) =>
            admitted.settle({
              model: resolved.model,
              target: `runtime/${servedBy}`,
              inputTokens: usage.inputTokens,
              outputTokens: usage.outputTokens,
              status: 200,
              latencyMs: Math.round(performance.now() - started),
            }),
        }
      : {}),
  };
  if (!request.stream) {
    const completion = await generateWithRuntime(runtime, request, attempt.context(), { ...runtimeMeta, dropParams: attempt.dropParams });
    return { response: rawResponse(JSON.stringify(completion), { headers: { "content-type": "application/json" } }), servedBy };
  }
  const includeUsage = request.stream_options?.include_usage === true;
  const build = (answering: Runtime) =>
    streamWithRuntime(answering, request, attempt.context(), {
      ...runtimeMeta,
      includeUsage,
      target: resolved,
      dropParams: attempt.dropParams,
    });
  // With a later target, held back until the provider answered or failed: a 429/5xx then falls back before any byte.
  const stream = attempt.hasFallback ? await primedStream(runtime, build) : build(runtime);
  const reserved = estimate ? reservationUsage(estimate, { vendor: "runtime", model: request.model }, 200, 0) : undefined;
  const body = admitted && reserved ? settleWhenDone(stream, admitted, reserved) : stream;
  return { response: rawResponse(body, { headers: EVENT_STREAM_HEADERS }), servedBy };
}
