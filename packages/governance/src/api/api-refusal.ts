import { type GateRefusal, ServerAdapterError } from "@conduit-ai/server-core";

const CATEGORY = { 400: "VALIDATION", 401: "AUTHENTICATION", 403: "AUTHORIZATION", 429: "RATE_LIMIT", 503: "EXECUTION" } as const;

/**
 * A refusal in Conduit's envelope (the `/api` routes and the `/ws` upgrade): code the reason in
 * upper case (`BUDGET_EXCEEDED`), `details.reason` as the gate names it, `retry-after` when a retry can succeed.
 *
 * @example
 * throw apiRefusalError(refusal); // 429 {"error":{"code":"BUDGET_EXCEEDED","details":{"reason":"budget_exceeded"},...}}
 */
export function apiRefusalError(refusal: GateRefusal): ServerAdapterError {
  return new ServerAdapterError(refusal.message, {
    code: refusal.reason.toUpperCase(),
    statusCode: refusal.status,
    category: CATEGORY[refusal.status],
    retryable: !refusal.final,
    ...(refusal.retryAfterSeconds === undefined ? {} : { retryAfterMs: refusal.retryAfterSeconds * 1000 }),
    details: { reason: refusal.reason },
  });
}
