import {
  type RouteDefinition,
  type ServerContext,
  ServerValidationError,
  callContextOf,
  isStoreUnavailable,
  rawResponse,
} from "@conduit-ai/server-core";
import type { AdmissionRequest, Admitted } from "../../admission/client-admission.js";
import { admissionRequestOf } from "../../admission/request-estimate.js";
import { reservationUsage, settleFromAnswer } from "../../admission/settlement.js";
import type { ProxyReply } from "../../relay/proxy-reply.js";
import { serveWithFallbacks } from "../../routing/fallbacks.js";
import { modelsReachedBy } from "../../routing/model-table.js";
import type { RuntimeUsage } from "../../targets/runtime/runtime-messages.js";
import { topLevelModelOf } from "../../wire/anthropic-messages/body-model.js";
import { headersOf, searchOf } from "../client-request.js";
import type { ProxyRouteDeps } from "../proxy-routes.js";
import { serveMessagesTarget } from "./messages-targets.js";

function asRouteResult(reply: ProxyReply) {
  return rawResponse(reply.body, { status: reply.status, headers: reply.headers });
}

/** `POST /v1/messages`: the body goes upstream unparsed, the answer comes back unchanged. */
export function createMessagesRoute(deps: ProxyRouteDeps): RouteDefinition {
  return {
    method: "POST",
    path: "/v1/messages",
    absolute: true,
    rawBody: true,
    streaming: true,
    timeoutMs: deps.config.timeoutMs,
    // Limited per client credential by the admission, not per address by the server.
    rateLimit: false,
    summary: "Messages API passthrough over the account pool",
    tags: ["proxy"],
    handler: async (ctx: ServerContext) => {
      const admission = deps.admission;
      admission.precheck(ctx);
      const body = await ctx.readRawBody();
      if (!body || body.byteLength === 0)
        throw new ServerValidationError("Request body is required", [{ field: "body", message: "a Messages API request" }]);
      // The body is parsed only for a gate (model, tokens, repeated keys, caps); without one it goes upstream unread.
      const estimate = admission.gated ? admissionRequestOf("anthropic", body) : { surface: "anthropic" as const, estimatedInputTokens: 0 };
      // Routed by the body's model (read without parsing the rest); a body naming none goes upstream as is.
      const model = estimate.model ?? topLevelModelOf(body);
      // A name the table does not route is the pool's, whatever it looks like (a passthrough).
      const configured = model === undefined ? undefined : deps.models.configured(model);
      const reached = modelsReachedBy(configured);
      // An alias is reserved at the dearest model it may reach; the allow-list still checks its name.
      const request: AdmissionRequest = reached ? { ...estimate, models: reached } : estimate;
      const admitted = await admission.admit(ctx, request);
      const target = { vendor: "anthropic", model: request.model };
      const search = searchOf(ctx);
      const relayRequest = {
        headers: headersOf(ctx),
        signal: ctx.abortSignal,
        ...(search ? { search } : {}),
        ...(ctx.traceSpan ? { traceSpan: ctx.traceSpan } : {}),
        ...(admission.gated ? { onAnswered: settleFromAnswer(admitted, request, target) } : {}),
      };
      try {
        if (model === undefined) return asRouteResult(await deps.relayMessages(body, relayRequest));
        const targets = configured ?? [{ kind: "anthropic" as const, model, name: `anthropic/${model}` }];
        const attempt = {
          body,
          model,
          relayMessages: deps.relayMessages,
          runtime: deps.runtime,
          context: () => callContextOf(ctx),
          request: relayRequest,
          onRuntimeUsage: settleRuntimeAnswer(admitted, request),
        };
        return await serveWithFallbacks(targets, ctx.abortSignal, (next) =>
          serveMessagesTarget(next, { ...attempt, hasFallback: next !== targets.at(-1) }),
        );
      } catch (error) {
        // Gone before any answer: the call may have reached upstream, so the reservation stands.
        if (ctx.abortSignal.aborted) admitted.settle(reservationUsage(request, target, 499, 0));
        else admitted.release();
        // A store outage (Redis) leaves as 503 STORE_UNAVAILABLE, in Anthropic's shape on this path.
        if (isStoreUnavailable(error)) deps.onWarning?.("proxy: the pool's store is unavailable");
        throw error;
      }
    },
  };
}

/**
 * Settles a runtime-served Messages call: the tokens its provider reported, priced by the served
 * model; none reported (cut, failed) → the reservation stands.
 */
function settleRuntimeAnswer(admitted: Admitted, request: AdmissionRequest) {
  const started = performance.now();
  return (servedBy: string, usage: RuntimeUsage | undefined) => {
    const latencyMs = Math.round(performance.now() - started);
    if (!usage) return admitted.settle(reservationUsage(request, { vendor: "runtime", model: servedBy }, 200, latencyMs));
    const model = servedBy.slice(servedBy.indexOf("/") + 1);
    admitted.settle({
      model,
      target: `runtime/${servedBy}`,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      status: 200,
      latencyMs,
    });
  };
}
