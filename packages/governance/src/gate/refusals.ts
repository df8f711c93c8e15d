import type { GateRefusal } from "@conduit-ai/server-core";
import type { AdmitOutcome } from "../store/governance-store.js";

function refusal(
  status: GateRefusal["status"],
  reason: GateRefusal["reason"],
  message: string,
  final: boolean,
  retryAfterSeconds?: number,
): GateRefusal {
  return { refused: true, status, reason, message, final, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
}

export const missingKey = (): GateRefusal =>
  refusal(401, "missing_key", "A virtual key is required (x-api-key or Authorization: Bearer)", true);

export const storeUnavailable = (): GateRefusal =>
  refusal(503, "store_unavailable", "The key store is unavailable; retry shortly", false, 1);

export const invalidRequest = (message: string): GateRefusal => refusal(400, "invalid_request", message, true);

export const invalidKeyRecord = (scope: "key" | "team"): GateRefusal =>
  refusal(
    403,
    "invalid_key_record",
    `The stored record of this ${scope === "team" ? "key's team" : "key"} cannot be read: an administrator must update or recreate it`,
    true,
  );

export const concurrencyTimeout = (scope: string): GateRefusal =>
  refusal(429, "concurrency_timeout", `Too many calls in flight for this ${scope}: the queue wait timed out`, false, 1);

/** A store's refusal (anything but a concurrency wait) as the surface-neutral refusal. */
export function refusalOf(
  outcome: Exclude<AdmitOutcome, { admitted: true } | { reason: "concurrency" }>,
  model: string | undefined,
  unpricedModel?: string,
): GateRefusal {
  switch (outcome.reason) {
    case "invalid_key":
      return refusal(401, "invalid_key", "The key is unknown, revoked or expired", true);
    case "invalid_key_record":
      return invalidKeyRecord(outcome.scope);
    case "invalid_argument":
      return invalidRequest(`The request carries a number the gate cannot count (${outcome.argument})`);
    case "model_not_allowed":
      return refusal(403, "model_not_allowed", `Model "${model ?? "(none)"}" is not allowed for this key`, true);
    case "model_unpriced":
      return refusal(
        403,
        "model_unpriced",
        `Model "${unpricedModel ?? model ?? "(none)"}" has no price, and this ${outcome.scope} has a budget: add it under "prices" in the server's config (USD per million tokens)`,
        true,
      );
    case "rate_limited":
      return refusal(
        429,
        "rate_limited",
        `Rate limit exceeded: the ${outcome.scope}'s ${outcome.limit} limit`,
        false,
        outcome.retryAfterSeconds,
      );
    case "budget_exceeded":
      return refusal(
        429,
        "budget_exceeded",
        `budget_exceeded: the ${outcome.scope}'s ${outcome.window} budget cannot cover this request`,
        outcome.window === "total",
        outcome.retryAfterSeconds,
      );
  }
}
