import type { GuardrailCallContext, GuardrailHit, GuardrailSet, Guardrails } from "@conduit-ai/guardrails";
import type { GateIdentity, ServerContext } from "@conduit-ai/server-core";

/** The guardrails one admitted call runs, who it is (for a webhook), and where its hits go. */
export interface CallGuard {
  set: GuardrailSet;
  context: GuardrailCallContext;
  record(hits: readonly GuardrailHit[]): void;
}

/** `ctx.state` key of the call's guardrail hits (the usage event and the live feed read them; never content). */
export const GUARDRAIL_HITS_KEY = "conduit.guardrails.hits";

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
      const seen = (ctx.state[GUARDRAIL_HITS_KEY] as GuardrailHit[] | undefined) ?? [];
      ctx.state[GUARDRAIL_HITS_KEY] = [...seen, ...hits];
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
