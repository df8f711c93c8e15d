import type { ErrorShape, ServerAdapterError } from "@conduit-ai/server-core";
import { gateRefusalOf } from "../gate-refusal.js";
import { retryHint } from "../../relay/final-status.js";

/** The codex backend's `error.type` for a status. */
function codexTypeOf(status: number): string {
  if (status === 401) return "invalid_api_key";
  if (status === 429) return "rate_limit_exceeded";
  if (status === 408) return "request_timeout";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** Conduit's own errors on the codex route in the codex backend's `{error:{type, message}}`. */
export function writeCodexError(error: ServerAdapterError) {
  const status = error.statusCode;
  const refusal = gateRefusalOf(error);
  return {
    status,
    headers: { ...retryHint(status), ...(refusal?.final ? { "x-should-retry": "false" } : {}) },
    body: JSON.stringify({
      error:
        error.code === "guardrail_violation"
          ? { type: "guardrail_violation", code: "guardrail_violation", message: error.message }
          : { type: refusal?.gateReason === "budget_exceeded" ? "budget_exceeded" : codexTypeOf(status), message: error.message },
    }),
  };
}

/** `/backend-api/codex/*` answers Conduit's own errors in the codex backend's shape. */
export const codexErrorShape: ErrorShape = { pathPrefix: "/backend-api/codex/", write: writeCodexError };
