import { anthropicErrorReply, replyToResponse } from "./proxy-reply.js";

/** Anthropic's error types (https://docs.anthropic.com/en/api/errors). */
export type AnthropicErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "api_error"
  | "overloaded_error";

/** An error answer in the vendor's shape, so the SDKs raise their own typed errors. */
export function anthropicError(status: number, type: AnthropicErrorType, message: string, headers: Record<string, string> = {}): Response {
  return replyToResponse(anthropicErrorReply(status, type, message, headers));
}
