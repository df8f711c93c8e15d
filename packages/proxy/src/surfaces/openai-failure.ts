import { ServerAdapterError } from "@conduit-ai/server-core";
import { TargetFailure } from "../targets/target.js";
import { OpenAIWireError, fromVendorError } from "../wire/openai-chat/openai-wire-error.js";

/** OpenAI's 404 for a model nothing here serves; `message` names what exists when the target knew. */
export function modelNotFound(model: string, message?: string): OpenAIWireError {
  return new OpenAIWireError(
    404,
    message ?? `The model \`${model}\` does not exist or you do not have access to it.`,
    "invalid_request_error",
    "model",
    "model_not_found",
  );
}

/** A server error (a runtime failure, the pool's store down) in OpenAI's shape, its status, code and `retry-after` kept. */
export function fromServerError(error: ServerAdapterError): OpenAIWireError {
  const type = error.statusCode >= 500 ? "server_error" : error.statusCode === 429 ? "rate_limit_error" : "invalid_request_error";
  const headers: Record<string, string> =
    error.retryAfterMs === undefined ? {} : { "retry-after": String(Math.ceil(error.retryAfterMs / 1000)) };
  return new OpenAIWireError(error.statusCode, error.message, type, null, error.code, headers);
}

/** A runtime failure in OpenAI's shape, keeping the runtime's status and code; anything unknown is a 500. */
export function fromRuntimeError(error: unknown): OpenAIWireError {
  if (error instanceof OpenAIWireError) return error;
  if (ServerAdapterError.isInstance(error)) return fromServerError(error);
  return new OpenAIWireError(500, "The server had an error while processing your request.", "server_error");
}

/** The pool could not send: a server error keeps its status (a 503 store outage), anything else is a 502. */
export function unreachableOf(cause: unknown): OpenAIWireError {
  if (ServerAdapterError.isInstance(cause))
    return new OpenAIWireError(
      cause.statusCode,
      cause.message,
      cause.statusCode >= 500 ? "server_error" : "invalid_request_error",
      null,
      cause.code,
    );
  return new OpenAIWireError(502, "The upstream Messages API could not be reached", "server_error", null, "upstream_unavailable");
}

/**
 * A failed call of an OpenAI-compatible surface in OpenAI's shape: a target's failure (no such
 * model, upstream's error answer with its status and `retry-after`, an upstream that broke its
 * wire, one that could not be reached — `unreachable` says how this surface answers that), a
 * runtime failure, or a 500.
 *
 * @example
 * return call.failed(error, (failure) => openaiFailureOf(failure).toResponse());
 */
export function openaiFailureOf(error: unknown, unreachable: (cause: unknown) => OpenAIWireError = unreachableOf): OpenAIWireError {
  if (!(error instanceof TargetFailure)) return fromRuntimeError(error);
  switch (error.reason) {
    case "model_not_found":
      return modelNotFound(error.model ?? "", error.code === "model_not_found" ? error.message : undefined);
    case "upstream_error": {
      const upstream = error.upstream ?? { status: error.statusCode, body: "", headers: {} };
      const headers = new Headers();
      for (const [name, value] of Object.entries(upstream.headers)) for (const item of [value].flat()) headers.append(name, item);
      return fromVendorError(upstream.status, upstream.body, headers);
    }
    case "upstream_protocol_error":
      return new OpenAIWireError(502, error.message, "server_error", null, "upstream_protocol_error");
    case "upstream_unreachable":
      return unreachable(error.cause);
  }
}
