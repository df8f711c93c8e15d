import type { GuardrailCallContext, GuardrailHit, GuardrailSet, Guardrails } from "@conduit-ai/guardrails";
import type { GateIdentity, ServerContext } from "@conduit-ai/server-core";
import { recordGuardrailHits } from "@conduit-ai/server-core/internal";

/** The guardrails one admitted call runs, who it is (for a webhook), and where its hits go. */
export interface CallGuard {
  set: GuardrailSet;
  context: GuardrailCallContext;
  record(hits: readonly GuardrailHit[]): void;
}

/** The guardrail hits recorded on a call so far (for its usage event); undefined when none. */
export { guardrailHitsOf } from "@conduit-ai/server-core/internal";

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
      recordGuardrailHits(ctx, hits);
      guardrails.record(hits);
    },
  };
}
