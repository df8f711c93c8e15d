import { retryHint } from "../../relay/final-status.js";
import { type ProxyReply, replyToResponse } from "../../relay/proxy-reply.js";

/** Anthropic's error types (https://docs.anthropic.com/en/api/errors). */
export type AnthropicErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "overloaded_error";

/** An error answer in Anthropic's shape, so the SDKs raise their own typed errors. */
export function anthropicErrorReply(status: number, type: string, message: string, headers: Record<string, string> = {}): ProxyReply {
  return {
    status,
    headers: { "content-type": "application/json", ...retryHint(status), ...headers },
    body: Buffer.from(JSON.stringify({ type: "error", error: { type, message } })),
  };
}

/**
 * An error answer in the vendor's shape as a WHATWG `Response`.
 *
 * @example
 * return anthropicError(401, "authentication_error", "A proxy client key is required");
 */
export function anthropicError(status: number, type: AnthropicErrorType, message: string, headers: Record<string, string> = {}): Response {
  return replyToResponse(anthropicErrorReply(status, type, message, headers));
}
