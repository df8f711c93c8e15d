import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as errors from "./index.js";

const table: Array<[string, number, string, boolean, string]> = [
  ["ConfigurationError", 400, "CONFIG", false, "INVALID_CONFIG"],
  ["RouteConflictError", 500, "CONFIG", false, "ROUTE_CONFLICT"],
  ["RouteNotFoundError", 404, "VALIDATION", false, "ROUTE_NOT_FOUND"],
  ["ServerValidationError", 400, "VALIDATION", false, "VALIDATION_ERROR"],
  ["AuthenticationError", 401, "AUTHENTICATION", false, "AUTH_REQUIRED"],
  ["InvalidAuthenticationError", 401, "AUTHENTICATION", false, "AUTH_INVALID"],
  ["AuthorizationError", 403, "AUTHORIZATION", false, "FORBIDDEN"],
  ["ServerRateLimitError", 429, "RATE_LIMIT", true, "RATE_LIMIT_EXCEEDED"],
  ["HandlerError", 500, "EXECUTION", false, "HANDLER_ERROR"],
  ["TimeoutError", 408, "EXECUTION", true, "TIMEOUT"],
  ["StreamingError", 500, "STREAMING", false, "STREAM_ERROR"],
  ["StreamAbortedError", 499, "STREAMING", false, "STREAM_ABORTED"],
  ["WebSocketError", 500, "WEBSOCKET", true, "WEBSOCKET_ERROR"],
  ["WebSocketConnectionError", 500, "WEBSOCKET", true, "WEBSOCKET_CONNECTION_FAILED"],
  ["ServerStartError", 500, "CONFIG", true, "START_FAILED"],
  ["ServerStopError", 500, "EXECUTION", false, "STOP_FAILED"],
  ["AlreadyRunningError", 500, "CONFIG", false, "ALREADY_RUNNING"],
  ["NotRunningError", 500, "CONFIG", false, "NOT_RUNNING"],
];

describe("error taxonomy", () => {
  it.each(table)("%s has status %i, category %s, retryable %s, code %s", (name, status, category, retryable, code) => {
    const ErrorClass = (errors as unknown as Record<string, new (...args: unknown[]) => errors.ServerAdapterError>)[name];
    const args = name === "RouteConflictError" || name === "RouteNotFoundError" ? ["GET", "/x"] : ["message"];
    const error = new ErrorClass!(...args);
    expect(error).toMatchObject({ statusCode: status, category, retryable, code, name });
    expect(errors.ServerAdapterError.isInstance(error)).toBe(true);
    expect(Object.values(errors.ErrorSeverity)).toContain(error.severity);
  });

  it("covers all 20 classes of docs/spec.md", () => {
    const names = [...table.map(([name]) => name), "ServerAdapterError", "MissingDependencyError"];
    for (const name of names) expect(typeof (errors as Record<string, unknown>)[name]).toBe("function");
    expect(names).toHaveLength(20);
  });

  it("serializes as {error: {code, message, category, requestId, details, retryAfter}}", () => {
    const error = new errors.ServerRateLimitError("slow down", { retryAfterMs: 1500, requestId: "req-1", details: { limit: 5 } });
    expect(error.toJSON()).toEqual({
      error: {
        code: "RATE_LIMIT_EXCEEDED",
        message: "slow down",
        category: "RATE_LIMIT",
        requestId: "req-1",
        details: { limit: 5 },
        retryAfter: 2,
      },
    });
  });

  it("recognizes errors from another copy of the package through the Symbol.for marker", () => {
    const foreign = new Error("x");
    Object.defineProperty(foreign, Symbol.for("@conduit-ai/server-core/ServerAdapterError"), { value: true });
    expect(errors.ServerAdapterError.isInstance(foreign)).toBe(true);
    expect(errors.ServerAdapterError.isInstance(new Error("plain"))).toBe(false);
    expect(errors.ServerAdapterError.isInstance(null)).toBe(false);
  });

  it("wrapError keeps server errors and hides anything else behind HandlerError", () => {
    const known = new errors.AuthorizationError();
    expect(errors.wrapError(known)).toBe(known);
    const wrapped = errors.wrapError(new Error("SELECT * FROM secrets"), { requestId: "req-9" });
    expect(wrapped).toBeInstanceOf(errors.HandlerError);
    expect(wrapped.message).toBe("Internal server error");
    expect(wrapped.requestId).toBe("req-9");
    expect((wrapped.cause as Error).message).toBe("SELECT * FROM secrets");
  });

  it("MissingDependencyError names the pnpm add to run", () => {
    const error = new errors.MissingDependencyError("@conduit-ai/adapter-koa", {
      packages: ["@conduit-ai/adapter-koa", "koa"],
      packageManager: "pnpm",
    });
    expect(error.message).toContain("pnpm add @conduit-ai/adapter-koa koa");
    expect(error).toMatchObject({ statusCode: 500, category: "CONFIG", code: "MISSING_DEPENDENCY" });
  });

  it("has a recovery strategy per category", () => {
    for (const category of Object.values(errors.ErrorCategory)) {
      const strategy = errors.getRecoveryStrategy(category);
      expect(["retry", "exponentialBackoff", "circuitBreak", "fail"]).toContain(strategy.action);
      expect(strategy.maxRetries).toBeGreaterThanOrEqual(0);
    }
    expect(errors.getRecoveryStrategy("RATE_LIMIT").action).toBe("exponentialBackoff");
    expect(errors.getRecoveryStrategy("VALIDATION").action).toBe("fail");
  });

  it("ConfigurationError.ofZod names each key path under the section: unknown keys one by one, a closed set by its members", () => {
    const schema = z.strictObject({ sdk: z.enum(["conduit", "opentelemetry"]).optional(), ratio: z.number().optional() });
    const result = schema.safeParse({ sdk: "jaeger", ratio: "1", sdkk: 1, extra: 2 });
    if (result.success) throw new Error("expected the section to be refused");
    const error = errors.ConfigurationError.ofZod(result.error, "telemetry");
    expect(errors.ServerAdapterError.isInstance(error)).toBe(true);
    expect(error.code).toBe("INVALID_CONFIG");
    expect(error.issues).toEqual([
      { path: "telemetry.sdk", message: 'expected "conduit" | "opentelemetry"' },
      { path: "telemetry.ratio", message: expect.stringContaining("expected number") },
      { path: "telemetry.sdkk", message: "unknown key" },
      { path: "telemetry.extra", message: "unknown key" },
    ]);
    expect(error.message).toContain('telemetry.sdk: expected "conduit" | "opentelemetry"; ');
    expect(schema.safeParse({ sdk: "conduit", ratio: 0.5 }).success).toBe(true);
  });
});
