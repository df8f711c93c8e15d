import type { ErrorShape, ServerAdapterError } from "@conduit-ai/server-core";
import { gateRefusalOf } from "../gate-refusal.js";
import { retryHint } from "../../relay/final-status.js";
import type { AnthropicErrorType } from "./errors.js";

/** Anthropic's error type for a status (https://docs.anthropic.com/en/api/errors). */
export function anthropicTypeOf(status: number): AnthropicErrorType | "timeout_error" {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 408:
      return "timeout_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

/** Conduit's own errors on `/v1/messages*` in Anthropic's shape, with `request-id` as Anthropic sends it. */
export function writeAnthropicError(error: ServerAdapterError, request: { requestId: string }) {
  const status = error.statusCode;
  const refusal = gateRefusalOf(error);
  // Named for what stopped the call where Anthropic has no type for it (the SDKs key on the status).
  const type =
    refusal?.gateReason === "budget_exceeded"
      ? "budget_exceeded"
      : error.code === "guardrail_violation"
        ? "guardrail_violation"
        : anthropicTypeOf(status);
  return {
    status,
    headers: { "request-id": request.requestId, ...retryHint(status), ...(refusal?.final ? { "x-should-retry": "false" } : {}) },
    body: JSON.stringify({ type: "error", error: { type, message: error.message } }),
  };
}

/**
 * The Messages API's paths (`/v1/messages`, `/v1/messages/count_tokens`, …) answer Conduit's own
 * errors — unknown routes, auth, limits, timeouts, body limits, outages — in Anthropic's shape.
 */
export const anthropicErrorShape: ErrorShape = { pathPrefix: "/v1/messages", write: writeAnthropicError };
