import type { ServerContext } from "../contracts/context.js";
import type { Runtime, RuntimeCallContext } from "../contracts/runtime.js";
import { ErrorCategory, ErrorSeverity } from "../errors/codes.js";
import { ServerAdapterError } from "../errors/server-adapter-error.js";
import { callTokenOf } from "./call-token.js";

/**
 * The runtime the groups call, or a 503 when the server was created without one:
 * the routes stay registered (and documented) so a client learns why they cannot work.
 *
 * @example
 * const runtime = requireRuntime(adapter.runtime);
 */
export function requireRuntime(runtime: Runtime | undefined): Runtime {
  if (runtime) return runtime;
  throw new ServerAdapterError("No AI runtime is configured on this server", {
    code: "RUNTIME_UNAVAILABLE",
    statusCode: 503,
    category: ErrorCategory.EXECUTION,
    severity: ErrorSeverity.HIGH,
    retryable: false,
  });
}

/**
 * A 404 with a resource-specific code (`TOOL_NOT_FOUND`, `SESSION_NOT_FOUND`, ...).
 *
 * @example
 * throw resourceNotFound("TOOL_NOT_FOUND", `Tool "x" not found`, { name: "x" });
 */
export function resourceNotFound(code: string, message: string, details: Record<string, unknown>): ServerAdapterError {
  return new ServerAdapterError(message, {
    code,
    statusCode: 404,
    category: ErrorCategory.VALIDATION,
    severity: ErrorSeverity.LOW,
    details,
  });
}

/**
 * Who calls and why, handed to every runtime call: the abort signal cancels upstream work when
 * the client leaves, and the request's bearer token (`callTokenOf`) reaches the runtime's
 * per-call token validation (`RuntimeOptions.auth`) as `authToken`, and the request's span (when
 * tracing is on) becomes the parent of the runtime's spans.
 *
 * @example
 * handler: (ctx) => runtime.generate(ctx.body, callContextOf(ctx))
 */
export function callContextOf(ctx: Pick<ServerContext, "requestId" | "user" | "abortSignal" | "header" | "traceSpan">): RuntimeCallContext {
  const authToken = callTokenOf(ctx);
  return {
    requestId: ctx.requestId,
    user: ctx.user,
    signal: ctx.abortSignal,
    ...(authToken === undefined ? {} : { authToken }),
    ...(ctx.traceSpan === undefined ? {} : { traceSpan: ctx.traceSpan }),
  };
}
