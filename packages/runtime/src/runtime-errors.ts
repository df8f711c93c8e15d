import { ServerAdapterError, ServerValidationError, userConfirmationRequired } from "@conduit-ai/server-core";

/** Error codes the runtime adds to the server-core table (documented in the README). */
export const RuntimeErrorCode = {
  PROVIDER_NOT_CONFIGURED: "PROVIDER_NOT_CONFIGURED",
  MODEL_NOT_AVAILABLE: "MODEL_NOT_AVAILABLE",
  PROVIDER_AUTH_FAILED: "PROVIDER_AUTH_FAILED",
  PROVIDER_RATE_LIMITED: "PROVIDER_RATE_LIMITED",
  PROVIDER_ERROR: "PROVIDER_ERROR",
  PROVIDER_UNAVAILABLE: "PROVIDER_UNAVAILABLE",
  PROVIDER_TIMEOUT: "PROVIDER_TIMEOUT",
  TOOL_NOT_FOUND: "TOOL_NOT_FOUND",
  TOOL_EXECUTION_FAILED: "TOOL_EXECUTION_FAILED",
  USER_CONFIRMATION_REQUIRED: "USER_CONFIRMATION_REQUIRED",
  MCP_SERVER_NOT_FOUND: "MCP_SERVER_NOT_FOUND",
  MCP_SERVER_UNAVAILABLE: "MCP_SERVER_UNAVAILABLE",
  // Codes of docs/spec.md's video and presentation generation. Those are runtime features outside
  // the server layer (no route, no Conduit implementation): the codes are exported so such a
  // feature built on this runtime answers with docs/spec.md's names, and clients can match them.
  /** Video generation gave up polling the provider's job. */
  VIDEO_POLL_TIMEOUT: "VIDEO_POLL_TIMEOUT",
  /** Video input refused: a second provider, or an image that is not PNG, JPEG or WebP under 20 MB. */
  VIDEO_INVALID_INPUT: "VIDEO_INVALID_INPUT",
  /** Presentation generation could not plan the slides. */
  PPT_PLANNING_FAILED: "PPT_PLANNING_FAILED",
  /** The model's answer was not a usable presentation plan. */
  PPT_INVALID_AI_RESPONSE: "PPT_INVALID_AI_RESPONSE",
  /** The presentation file could not be written. */
  PPT_FILE_WRITE_FAILED: "PPT_FILE_WRITE_FAILED",
} as const;

export function providerNotConfigured(name: string, available: string[]): ServerAdapterError {
  return new ServerAdapterError(`Provider "${name}" is not configured. Available: ${available.join(", ")}`, {
    code: RuntimeErrorCode.PROVIDER_NOT_CONFIGURED,
    statusCode: 400,
    category: "VALIDATION",
    details: { provider: name, available },
  });
}

export function modelNotAvailable(provider: string, model: string, available: string[]): ServerAdapterError {
  return new ServerAdapterError(`Model "${model}" is not available on provider "${provider}". Available: ${available.join(", ")}`, {
    code: RuntimeErrorCode.MODEL_NOT_AVAILABLE,
    statusCode: 400,
    category: "VALIDATION",
    details: { provider, model, available },
  });
}

/** A provider with no listed models (an OpenAI-compatible server, Azure deployments) needs the call to name one. */
export function modelRequired(provider: string): ServerAdapterError {
  return new ServerAdapterError(`Provider "${provider}" lists no default model: name one (model: "${provider}/<model>")`, {
    code: RuntimeErrorCode.MODEL_NOT_AVAILABLE,
    statusCode: 400,
    category: "VALIDATION",
    details: { provider, available: [] },
  });
}

export function toolNotFound(name: string): ServerAdapterError {
  return new ServerAdapterError(`Tool "${name}" not found`, {
    code: RuntimeErrorCode.TOOL_NOT_FOUND,
    statusCode: 404,
    category: "VALIDATION",
    details: { name },
  });
}

/** 428 `USER_CONFIRMATION_REQUIRED`: server-core's one definition, so every runtime answers alike. */
export function confirmationRequired(name: string): ServerAdapterError {
  return userConfirmationRequired(name);
}

export function toolExecutionFailed(name: string, message: string, external = false): ServerAdapterError {
  return new ServerAdapterError(`Tool "${name}" failed: ${message}`, {
    code: RuntimeErrorCode.TOOL_EXECUTION_FAILED,
    statusCode: external ? 502 : 500,
    category: external ? "EXTERNAL" : "EXECUTION",
    details: { name, reason: message },
  });
}

export function mcpServerNotFound(name: string, available: string[]): ServerAdapterError {
  return new ServerAdapterError(`MCP server "${name}" not found`, {
    code: RuntimeErrorCode.MCP_SERVER_NOT_FOUND,
    statusCode: 404,
    category: "VALIDATION",
    details: { name, available },
  });
}

export function mcpServerUnavailable(name: string, reason: string | null): ServerAdapterError {
  return new ServerAdapterError(`MCP server "${name}" is unavailable${reason ? `: ${reason}` : ""}`, {
    code: RuntimeErrorCode.MCP_SERVER_UNAVAILABLE,
    statusCode: 503,
    category: "EXTERNAL",
    retryable: true,
    retryAfterMs: 1000,
    details: { name, lastError: reason },
  });
}

/** A single-field 400 in the server-core validation shape. */
export function invalidField(field: string, message: string): ServerValidationError {
  return new ServerValidationError(message, [{ field, message }]);
}
