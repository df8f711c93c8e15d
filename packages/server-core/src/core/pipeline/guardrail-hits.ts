import type { ServerContext } from "../../contracts/context.js";
import type { GateGuardrailHit } from "../../contracts/gate.js";
import type { RuntimeCallContext } from "../../contracts/runtime.js";
import { annotateRequestFeed } from "./request-feed.js";

/** `ctx.state` key of a call's guardrail hits (its usage event and the live feed read them; never content). */
export const GUARDRAIL_HITS_STATE = "conduit.guardrails.hits";

/** A hit as the live feed lists it: `name:action:direction:entity` (never the matched text). */
export function guardrailHitLabel(hit: GateGuardrailHit): string {
  return `${hit.guardrail}:${hit.action}:${hit.direction}:${hit.entity}`;
}

/** The guardrail hits recorded on a call so far; undefined when none. */
export function guardrailHitsOf(ctx: Pick<ServerContext, "state">): GateGuardrailHit[] | undefined {
  return ctx.state[GUARDRAIL_HITS_STATE] as GateGuardrailHit[] | undefined;
}

/**
 * Adds hits to a call: kept for its usage event, shown on the live feed as
 * `name:action:direction:entity`, and each a `conduit.guardrail` event on the request's span.
 * Only the four named fields are kept, whatever else a hit object carries.
 *
 * @example
 * recordGuardrailHits(ctx, [{ guardrail: "pii", action: "mask", direction: "request", entity: "email" }]);
 */
export function recordGuardrailHits(ctx: Pick<ServerContext, "state" | "traceSpan">, hits: readonly GateGuardrailHit[]): void {
  if (hits.length === 0) return;
  const added = hits.map(({ guardrail, action, direction, entity }) => ({ guardrail, action, direction, entity }));
  const all = [...(guardrailHitsOf(ctx) ?? []), ...added];
  ctx.state[GUARDRAIL_HITS_STATE] = all;
  annotateRequestFeed(ctx, { guardrails: all.map(guardrailHitLabel) });
  for (const hit of added)
    ctx.traceSpan?.addEvent("conduit.guardrail", {
      "conduit.guardrail.name": hit.guardrail,
      "conduit.guardrail.action": hit.action,
      "conduit.guardrail.direction": hit.direction,
      "conduit.guardrail.entity": hit.entity,
    });
}

/** One runtime call's hits, by its call context object (a surface makes one per call). */
const callHits = new WeakMap<object, GateGuardrailHit[]>();

/**
 * Adds hits to one runtime call, by the call context every wrapper of that call is handed: the
 * guardrails' runtime records them, the gate's runtime settles the call's usage event with them.
 * For surfaces without an HTTP request per call (`/ws` messages) and runtimes a route calls with
 * its own context (`/api/ai` workflows), where `ctx.state` is not reachable from the runtime.
 *
 * @example
 * recordCallGuardrailHits(context, [{ guardrail: "pii", action: "mask", direction: "response", entity: "email" }]);
 */
export function recordCallGuardrailHits(context: RuntimeCallContext, hits: readonly GateGuardrailHit[]): void {
  if (hits.length === 0) return;
  const added = hits.map(({ guardrail, action, direction, entity }) => ({ guardrail, action, direction, entity }));
  callHits.set(context, [...(callHits.get(context) ?? []), ...added]);
}

/** The hits recorded on one runtime call so far; undefined when none. */
export function callGuardrailHitsOf(context: RuntimeCallContext | undefined): GateGuardrailHit[] | undefined {
  return context === undefined ? undefined : callHits.get(context);
}
