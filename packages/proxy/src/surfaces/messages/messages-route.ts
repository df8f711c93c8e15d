import {
  type RouteDefinition,
  type ServerContext,
  ServerValidationError,
  callContextOf,
  isStoreUnavailable,
  mergePrices,
} from "@conduit-ai/server-core";
import type { AdmissionRequest } from "../../admission/client-admission.js";
import { admissionRequestOf } from "../../admission/request-estimate.js";
import { reservationOutcome, settleFromAnswer, settleTargetUsage } from "../../admission/settlement.js";
import { replyToRouteResult } from "../../relay/proxy-reply.js";
import { routingOf, serveWithFallbacks } from "../../routing/fallbacks.js";
import { type RoutePlan, modelsReachedBy } from "../../routing/model-table.js";
import { targetOf } from "../../routing/targets.js";
import { topLevelModelOf } from "../../wire/anthropic-messages/body-model.js";
import { headersOf, searchOf } from "../client-request.js";
import { guardAnswer } from "../guardrails/guard-answer.js";
import { guardMessagesBody } from "../guardrails/guard-request.js";
import type { ProxyRouteDeps } from "../route-deps.js";
import { messagesCacheCall } from "./messages-cache.js";
import { messagesResponseOf } from "./messages-encoder.js";

/** `POST /v1/messages`: the body goes upstream unparsed, the answer comes back unchanged. */
export function createMessagesRoute(deps: ProxyRouteDeps): RouteDefinition {
  const prices = mergePrices(deps.config.prices);
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
      const headers = headersOf(ctx);
      const guard = admitted.guard;
      try {
        // Masked only when a request guardrail applies and found something; otherwise the client's bytes.
        const sent = await guardMessagesBody(guard, body, model);
        if (model === undefined) {
          const reply = await deps.relayMessages(sent, {
            headers,
            signal: ctx.abortSignal,
            ...(search ? { search } : {}),
            ...(ctx.traceSpan ? { traceSpan: ctx.traceSpan } : {}),
            ...(admission.gated ? { onAnswered: settleFromAnswer(admitted, target) } : {}),
          });
          const answer = await guardAnswer(guard, { kind: "passthrough", reply, servedBy: "anthropic" });
          return replyToRouteResult(answer.kind === "passthrough" ? answer.reply : reply);
        }
        const cached = await messagesCacheCall(deps.cache, ctx, admitted, model, body, prices);
        if (cached?.hit) return cached.hit;
        const plan: RoutePlan = configured
          ? await deps.models.plan(model, {
              inputTokens: estimate.estimatedInputTokens || Math.ceil(body.byteLength / 4),
              outputTokens: estimate.maxOutputTokens ?? 500,
            })
          : // `<provider>/<model>` of the runtime is routed like any name; any other name is the pool's, whatever it looks like.
            {
              targets: model.includes("/")
                ? deps.models.targetsFor(model)
                : [{ kind: "anthropic" as const, model, name: `anthropic/${model}` }],
            };
        const response = await serveWithFallbacks(
          plan.targets,
          ctx.abortSignal,
          async (route, hasFallback) => {
            const answer = await targetOf(deps.targets, route).serve({
              wire: "anthropic-messages",
              request: { body: sent, model },
              model: route.model,
              signal: ctx.abortSignal,
              headers,
              ...(search ? { search } : {}),
              ...(ctx.traceSpan ? { traceSpan: ctx.traceSpan } : {}),
              context: () => callContextOf(ctx),
              hasFallback,
              onUsage: settleTargetUsage(admitted, {
                gated: admission.gated,
                hasFallback,
                poolModel: request.model,
                reservationModel: (servedBy) => servedBy,
              }),
            });
            return { response: messagesResponseOf(await guardAnswer(guard, answer)), servedBy: answer.servedBy };
          },
          routingOf(ctx, plan),
        );
        return cached ? cached.capture(response) : response;
      } catch (error) {
        // Gone before any answer: the call may have reached upstream, so the reservation stands.
        if (ctx.abortSignal.aborted) admitted.settleAtReservation(reservationOutcome(target, 499, 0));
        else admitted.release();
        // A store outage (Redis) leaves as 503 STORE_UNAVAILABLE, in Anthropic's shape on this path.
        if (isStoreUnavailable(error)) deps.onWarning?.("proxy: the pool's store is unavailable");
        throw error;
      }
    },
  };
}
