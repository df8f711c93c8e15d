import type { GuardrailCallContext, GuardrailHit, GuardrailSet, Guardrails } from "@conduit-ai/guardrails";
import type { GateGuardrailHit, GateIdentity, ServerContext } from "@conduit-ai/server-core";
import { annotateRequestFeed } from "@conduit-ai/server-core/internal";

/** The guardrails one admitted call runs, who it is (for a webhook), and where its hits go. */
export interface CallGuard {
  set: GuardrailSet;
  context: GuardrailCallContext;
  record(hits: readonly GuardrailHit[]): void;
}

/** `ctx.state` key of the call's guardrail hits (the usage event and the live feed read them; never content). */
export const GUARDRAIL_HITS_KEY = "conduit.guardrails.hits";

/** The guardrail hits recorded on a call so far (for its usage event); undefined when none. */
export function guardrailHitsOf(ctx: Pick<ServerContext, "state">): GateGuardrailHit[] | undefined {
  return ctx.state[GUARDRAIL_HITS_KEY] as GateGuardrailHit[] | undefined;
}

/**
 * The call's guard: the configured defaults with the team's and key's lists; undefined when no
 * guardrail applies, so the call runs untouched (a passthrough stays byte for byte).
 */
export function callGuardOf(guardrails: Guardrails | undefined, ctx: ServerContext, identity?: GateIdentity): CallGuard | undefined {
  const set = guardrails?.select(identity?.guardrails ? [identity.guardrails] : []);
  if (!guardrails || !set) return undefined;
  const context: GuardrailCallContext = identity ? { key: identity.keyId, ...(identity.team ? { team: identity.team } : {}) } : {};
  return {
    set,
    context,
    record(hits) {
      if (hits.length === 0) return;
      const seen = guardrailHitsOf(ctx) ?? [];
      const all = [...seen, ...hits.map(({ guardrail, action, direction, entity }) => ({ guardrail, action, direction, entity }))];
      ctx.state[GUARDRAIL_HITS_KEY] = all;
      annotateRequestFeed(ctx, { guardrails: all.map((hit) => `${hit.guardrail}:${hit.action}:${hit.direction}:${hit.entity}`) });
      for (const hit of hits)
        ctx.traceSpan?.addEvent("conduit.guardrail", {
          "conduit.guardrail.name": hit.guardrail,
          "conduit.guardrail.action": hit.action,
          "conduit.guardrail.direction": hit.direction,
          "conduit.guardrail.entity": hit.entity,
        });
      guardrails.record(hits);
    },
  };
}
