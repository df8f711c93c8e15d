/**
 * @conduit-ai/server-core — contracts and the framework-neutral core of Conduit.
 * Adapters (`@conduit-ai/adapter-*`) translate a framework to this core; everything
 * users see is decided here once.
 */
export * from "./contracts/index.js";
export * from "./errors/index.js";
export { DEFAULT_SERVER_CONFIG } from "./config/defaults.js";
export { serverAdapterConfigSchema } from "./config/config-schema.js";
export { type ConfigIssue, normalizeBasePath, resolveConfig, validateFramework } from "./config/resolve-config.js";
export { type BeforeCloseHook, BaseServerAdapter } from "./core/base-adapter.js";
export { type BodySource, readRequestBody } from "./core/body-parser.js";
export { ADAPTER_PACKAGES, type AdapterModule, createServer } from "./core/create-server.js";
export { type ErrorFormatOptions, type ErrorResponse, type SuccessEnvelope, errorResponse, successEnvelope } from "./core/envelope.js";
export { type Logger, createConsoleLogger, silentLogger } from "./core/logger.js";
export { MiddlewareStack } from "./core/middleware-stack.js";
export { compilePathPattern, joinPaths, pathMatchesFilter } from "./core/path-pattern.js";
export { type RawResponse, isAsyncIterable, isRawResponse, rawResponse } from "./core/raw-response.js";
export { type IncomingRequest, type OutgoingResponse, RequestHandler } from "./core/request-handler.js";
export {
  type EncodeStreamOptions,
  type StreamFormat,
  encodeEventStream,
  encodeNdjsonLine,
  encodeSseFrame,
  negotiateStreamFormat,
  streamHeaders,
  toStreamEvent,
} from "./core/stream-encoding.js";
export {
  DEFAULT_REDACTED_FIELDS,
  DEFAULT_REDACTION_PLACEHOLDER,
  type StreamEventTransform,
  addStreamEventTransform,
  createStreamRedactor,
  redactStreamEvent,
  streamEventTransformFor,
} from "./core/stream-redaction.js";
export { validateRequest } from "./core/validate-request.js";
export { generateRequestSchema, namedToolExecuteRequestSchema } from "./routes/schemas.js";
export { createHealthRoutes } from "./routes/health-routes.js";
export { type HealthSource, checkReadiness } from "./routes/health-status.js";
export { VERSION } from "./version.js";
