import { type RawResponse, type ServerContext, callContextOf } from "@conduit-ai/server-core";
import type { CallAdmission } from "../admission/call-admission.js";
import type { Admitted } from "../admission/client-admission.js";
import { settleTargetUsage } from "../admission/settlement.js";
import { cacheCall } from "../cache/cache-call.js";
import type { ResponseCache } from "../cache/response-cache.js";
import { routingOf, serveWithFallbacks } from "../routing/fallbacks.js";
import type { ModelTable } from "../routing/model-table.js";
import { tokenEstimateOf } from "../routing/strategies.js";
import { type ProxyTargets, targetOf } from "../routing/targets.js";
import { DROPPED_TOOLS_HEADER, type SurfaceRequest, type TargetAnswer } from "../targets/target.js";
import { guardAnswer } from "./guardrails/guard-answer.js";
import { promptCacheHintOf } from "./openai-request.js";

/** One admitted call of an OpenAI-compatible surface (Chat Completions, Responses), ready to route. */
export interface TranslatedCall {
  /** The client's request in its surface's wire, as every target of the plan gets it. */
  surfaceRequest: Exclude<SurfaceRequest, { wire: "anthropic-messages" }>;
  /** The model the client named (an alias of the routing table, or a target). */
  model: string;
  /** The body as received: the routing strategies' token estimate without a gate. */
  text: string;
  admission: CallAdmission;
  admitted: Admitted | undefined;
  /** Client headers passed upstream (`anthropic-beta`, the pool's session header). */
  headers: Record<string, string>;
  /** The proxy's exact response cache, the parsed body it keys on, and what a stored answer saves. */
  cache?: {
    store: ResponseCache | undefined;
    body: Record<string, unknown>;
    savings: (bytes: Buffer, contentType: string) => { model: string; savedUsd: number };
  };
}

/**
 * Serves a translated call from the response cache when it holds the answer (see `cacheCall`),
 * else over its routing plan: each target in turn (the next one on a 429 or
 * 5xx), the target's usage settled with the call's admission, the answer guarded, then encoded
 * by the surface in its own wire. The one loop the OpenAI-compatible surfaces share; the caller's
 * `x-conduit-cache-control: auto` goes to every target (a Claude target marks cache breakpoints).
 *
 * @example
 * return serveTranslated(ctx, { models, targets }, translated, (answer, model) => chatResponseOf(answer, { ...meta, model }));
 */
export async function serveTranslated(
  ctx: ServerContext,
  routing: { models: ModelTable; targets: ProxyTargets },
  translated: TranslatedCall,
  encode: (answer: TargetAnswer, model: string) => RawResponse | Promise<RawResponse>,
): Promise<RawResponse> {
  const { admission, admitted, surfaceRequest } = translated;
  const promptCache = promptCacheHintOf(ctx);
  const cache = translated.cache;
  const cached = cache
    ? await cacheCall(
        cache.store,
        ctx,
        admitted,
        { surface: surfaceRequest.wire, model: translated.model, body: cache.body },
        cache.savings,
      )
    : undefined;
  if (cached?.hit) return cached.hit;
  const estimate = admission.request;
  const plan = await routing.models.plan(translated.model, tokenEstimateOf(translated.text, estimate));
  const response = await serveWithFallbacks(
    plan.targets,
    ctx.abortSignal,
    async (route, hasFallback) => {
      const answer = await targetOf(routing.targets, route).serve({
        ...surfaceRequest,
        model: route.model,
        signal: ctx.abortSignal,
        headers: translated.headers,
        ...(promptCache ? { promptCache } : {}),
        ...(ctx.traceSpan ? { traceSpan: ctx.traceSpan } : {}),
        context: () => callContextOf(ctx),
        hasFallback,
        ...(admitted && estimate
          ? {
              onUsage: settleTargetUsage(admitted, {
                gated: admission.gated,
                hasFallback,
                poolModel: route.model,
                reservationModel: () => route.model,
              }),
            }
          : {}),
      });
      // Codex always sends `web_search`: a target that cannot run it says what it left out.
      if (answer.droppedTools) ctx.setHeader(DROPPED_TOOLS_HEADER, answer.droppedTools.join(", "));
      return { response: await encode(await guardAnswer(admitted?.guard, answer), route.model), servedBy: answer.servedBy };
    },
    routingOf(ctx, plan),
  );
  return cached ? cached.capture(response) : response;
}
