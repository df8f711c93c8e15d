import { type RawResponse, type ZodIssueLike, formatZodIssues, rawResponse } from "@conduit-ai/server-core";
import { retryHint } from "../../relay/final-status.js";

/** OpenAI's error body: what the `openai` SDK reads into `APIError`. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/**
 * A client or upstream failure on the OpenAI-compatible surfaces, answered in OpenAI's wire shape.
 * Named apart from the `openai` SDK's own `OpenAIError`, which a test or client imports beside it.
 *
 * @example
 * throw new OpenAIWireError(400, "messages must not be empty", "invalid_request_error", "messages");
 */
export class OpenAIWireError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = "invalid_request_error",
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "OpenAIWireError";
  }

  toBody(): OpenAIErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }

  toResponse(): RawResponse {
    return rawResponse(JSON.stringify(this.toBody()), {
      status: this.status,
      headers: { ...retryHint(this.status), ...this.headers, "content-type": "application/json" },
    });
  }
}

/**
 * The former name of {@link OpenAIWireError}.
 *
 * @deprecated Use `OpenAIWireError`: this name clashes with the `openai` SDK's `OpenAIError`. Removed in the next major.
 */
export const OpenAIError = OpenAIWireError;
/** @deprecated Use `OpenAIWireError`. */
export type OpenAIError = OpenAIWireError;

/** A 400 naming the offending field, e.g. `messages[2].content`. */
export function invalidRequest(message: string, param: string | null = null, code: string | null = null): OpenAIWireError {
  return new OpenAIWireError(400, message, "invalid_request_error", param, code);
}

/**
 * A request zod refused, as OpenAI reports it: its first issue, the field in `param`
 * (`messages[2].content`) and in the message.
 *
 * @example
 * if (!parsed.success) throw invalidRequestFromIssues(parsed.error);
 */
export function invalidRequestFromIssues(error: { issues: readonly ZodIssueLike[] }): OpenAIWireError {
  const [first] = formatZodIssues(error, { indices: "brackets", rootField: "", limit: 1 });
  const param = first?.field || null;
  const message = first?.message ?? "Invalid request";
  return invalidRequest(param ? `Invalid value for '${param}': ${message}` : message, param);
}

/** The Messages API's error types as OpenAI names them. */
const TYPE_BY_VENDOR_TYPE: Record<string, { type: string; code: string | null }> = {
  invalid_request_error: { type: "invalid_request_error", code: null },
  authentication_error: { type: "authentication_error", code: "invalid_api_key" },
  permission_error: { type: "permission_error", code: null },
  not_found_error: { type: "invalid_request_error", code: "not_found" },
  request_too_large: { type: "invalid_request_error", code: "request_too_large" },
  rate_limit_error: { type: "rate_limit_error", code: "rate_limit_exceeded" },
  api_error: { type: "server_error", code: null },
  overloaded_error: { type: "server_error", code: "overloaded" },
};

const FORWARDED_ERROR_HEADERS = ["retry-after", "x-request-id", "request-id"];

/**
 * An upstream Messages API error (`{type:"error", error:{type, message}}`) in OpenAI's shape,
 * same status; `retry-after` is kept so clients back off as the pool asks.
 */
export function fromVendorError(status: number, bodyText: string, headers?: Headers): OpenAIWireError {
  let vendorType = "api_error";
  let message = `Upstream error (status ${status})`;
  try {
    const parsed = JSON.parse(bodyText) as { error?: { type?: unknown; message?: unknown } };
    if (typeof parsed.error?.type === "string") vendorType = parsed.error.type;
    if (typeof parsed.error?.message === "string") message = parsed.error.message;
  } catch {
    // Not JSON: keep the generic message rather than echoing an arbitrary upstream page.
  }
  const mapped = TYPE_BY_VENDOR_TYPE[vendorType] ?? { type: status >= 500 ? "server_error" : "invalid_request_error", code: null };
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED_ERROR_HEADERS) {
    const value = headers?.get(name);
    if (value) forwarded[name] = value;
  }
  const safeStatus = status >= 400 && status <= 599 ? status : 502;
  return new OpenAIWireError(safeStatus, message, mapped.type, null, mapped.code, forwarded);
}
