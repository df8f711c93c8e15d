import type { ErrorShape, ServerAdapterError } from "@conduit-ai/server-core";
import { gateRefusalOf } from "../gate-refusal.js";
import { retryHint } from "../../relay/final-status.js";

/** OpenAI's `type` and `code` for a status. */
export function openaiKindOf(status: number): { type: string; code: string | null } {
  switch (status) {
    case 401:
      return { type: "invalid_request_error", code: "invalid_api_key" };
    case 403:
      return { type: "invalid_request_error", code: "permission_denied" };
    case 404:
      return { type: "invalid_request_error", code: "not_found" };
    case 408:
      return { type: "timeout", code: "request_timeout" };
    case 413:
      return { type: "invalid_request_error", code: "request_too_large" };
    case 429:
      return { type: "rate_limit_error", code: "rate_limit_exceeded" };
    default:
      return status >= 500 ? { type: "server_error", code: null } : { type: "invalid_request_error", code: null };
  }
}

/** Conduit's own errors on OpenAI's paths in `{error:{message, type, param, code}}`. */
export function writeOpenAIError(error: ServerAdapterError, request: { method: string; path: string }) {
  const status = error.statusCode;
  const refusal = gateRefusalOf(error);
  const { type, code } =
    refusal?.gateReason === "budget_exceeded" ? { type: "insufficient_quota", code: "budget_exceeded" } : openaiKindOf(status);
  // OpenAI names an unknown route by method and path; the client sees what it asked for.
  const message = status === 404 && error.code === "ROUTE_NOT_FOUND" ? `Invalid URL (${request.method} ${request.path})` : error.message;
  const headers = { ...retryHint(status), ...(refusal?.final ? { "x-should-retry": "false" } : {}) };
  return { status, headers, body: JSON.stringify({ error: { message, type, param: null, code } }) };
}

/** Every other `/v1/*` path (chat completions, unknown routes) answers in OpenAI's shape. */
export const openaiErrorShape: ErrorShape = { pathPrefix: "/v1/", write: writeOpenAIError };
