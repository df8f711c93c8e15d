import { ServerAdapterError, StreamAbortedError } from "@conduit-ai/server-core";
import { APICallError, RetryError } from "ai";
import { RuntimeErrorCode } from "../runtime-errors.js";

/** Milliseconds from `retry-after-ms`, `retry-after` (seconds or HTTP date); undefined when absent. */
export function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  const milliseconds = Number(headers?.["retry-after-ms"]);
  if (headers?.["retry-after-ms"] !== undefined && Number.isFinite(milliseconds)) return Math.max(0, milliseconds);
  const value = headers?.["retry-after"];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/**
 * Maps whatever a provider call threw to one clear `ServerAdapterError`:
 * upstream 401/403 → 502 `PROVIDER_AUTH_FAILED` (our upstream credential is wrong, not the caller's),
 * 429 → 429 `PROVIDER_RATE_LIMITED` with `retryAfterMs`, other upstream statuses → 502 `PROVIDER_ERROR`,
 * network failures and cut connections → 502 `PROVIDER_UNAVAILABLE`, the caller's abort → 499,
 * any other abort (the `providerTimeout` firing) → 504 `PROVIDER_TIMEOUT`.
 */
export function mapProviderError(error: unknown, provider: string, callerSignal?: AbortSignal): ServerAdapterError {
  if (ServerAdapterError.isInstance(error)) return error;
  if (RetryError.isInstance(error)) return mapProviderError(error.lastError, provider, callerSignal);
  if (isAbort(error) && callerSignal?.aborted !== true) {
    return new ServerAdapterError(`Provider "${provider}" sent nothing within the configured time`, {
      code: RuntimeErrorCode.PROVIDER_TIMEOUT,
      statusCode: 504,
      category: "EXTERNAL",
      retryable: true,
      details: { provider },
      cause: error,
    });
  }
  if (isAbort(error)) return new StreamAbortedError("The request was aborted");
  if (APICallError.isInstance(error) && error.statusCode !== undefined) {
    const status = error.statusCode;
    const details = { provider, upstreamStatus: status };
    if (status === 401 || status === 403) {
      return new ServerAdapterError(`Provider "${provider}" rejected the configured credentials (${status})`, {
        code: RuntimeErrorCode.PROVIDER_AUTH_FAILED,
        statusCode: 502,
        category: "EXTERNAL",
        details,
        cause: error,
      });
    }
    if (status === 429) {
      const wait = retryAfterMs(error.responseHeaders);
      return new ServerAdapterError(`Provider "${provider}" is rate limiting requests`, {
        code: RuntimeErrorCode.PROVIDER_RATE_LIMITED,
        statusCode: 429,
        category: "RATE_LIMIT",
        retryable: true,
        ...(wait === undefined ? {} : { retryAfterMs: wait }),
        details,
        cause: error,
      });
    }
    return new ServerAdapterError(`Provider "${provider}" answered ${status}: ${error.message}`, {
      code: RuntimeErrorCode.PROVIDER_ERROR,
      statusCode: 502,
      category: "EXTERNAL",
      retryable: status >= 500,
      details,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ServerAdapterError(`Provider "${provider}" is unreachable or the connection failed: ${message}`, {
    code: RuntimeErrorCode.PROVIDER_UNAVAILABLE,
    statusCode: 502,
    category: "EXTERNAL",
    retryable: true,
    details: { provider },
    cause: error,
  });
}
