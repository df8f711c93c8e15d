/** One guardrail hit of a finished request, read from the feed's `name:action:direction:entity`. */
export interface GuardrailHitView {
  guardrail: string;
  action: string;
  direction: string;
  entity: string;
  /** How many times the call hit it (an answer masking three emails counts three). */
  count: number;
}

/**
 * A request's guardrail hits for the Live page, the same hit counted once with its number: the
 * feed carries names, actions, directions and entity types only, never the matched text.
 *
 * @example
 * guardrailHitsOf(["pii:mask:request:email", "pii:mask:request:email"]); // [{ guardrail: "pii", …, count: 2 }]
 */
export function guardrailHitsOf(hits: readonly string[] | undefined): GuardrailHitView[] {
  const views = new Map<string, GuardrailHitView>();
  for (const hit of hits ?? []) {
    const seen = views.get(hit);
    if (seen) {
      seen.count++;
      continue;
    }
    // A guardrail's name has no colon (the admin API refuses one): the first three colons split the fields.
    const [guardrail = "", action = "", direction = "", ...entity] = hit.split(":");
    views.set(hit, { guardrail, action, direction, entity: entity.join(":"), count: 1 });
  }
  return [...views.values()];
}

/** One hit as the Live page writes it: `pii masked email (request) ×2`. */
export function guardrailHitLabel(hit: GuardrailHitView): string {
  const verb = hit.action === "block" ? "blocked" : hit.action === "mask" ? "masked" : "logged";
  return `${hit.guardrail} ${verb} ${hit.entity} (${hit.direction})${hit.count > 1 ? ` ×${hit.count}` : ""}`;
}
