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
export {
  type BodySource,
  DEFAULT_MAX_BODY_DEPTH,
  parseForm,
  parseRawBody,
  readRawRequestBody,
  readRequestBody,
} from "./core/body-parser.js";
export { type TrustFunction, compileTrustProxy, isLoopbackAddress, resolveClientAddress } from "./core/client-address.js";
export { jsonDepthExceeds } from "./core/json-depth.js";
export { validateRoute } from "./core/route-validation.js";
export { ADAPTER_PACKAGES, type AdapterModule, type CreateServerWithAdapterOptions, createServer } from "./core/create-server.js";
export { type MountOptions, claimsRequest, mountedConfig, prepareMounted } from "./core/mounting.js";
export {
  type ErrorFormatOptions,
  type ErrorResponse,
  type SuccessEnvelope,
  errorBodyJson,
  errorResponse,
  lastResortErrorJson,
  successEnvelope,
} from "./core/envelope.js";
export { type Logger, createConsoleLogger, silentLogger } from "./core/logger.js";
export { type Deadline, DeadlineQueue } from "./core/deadline-queue.js";
export { within } from "./core/within.js";
export { type Extraction, decodeBasicCredential, parseAuthorization, readCookie } from "./core/credentials.js";
export {
  type CredentialRule,
  type CredentialScheme,
  type CredentialSource,
  credentialFromHeader,
  credentialSourceOf,
  defaultCredentialHeader,
  readCredential,
} from "./core/credential-rule.js";
export { MiddlewareStack } from "./core/middleware-stack.js";
export { compilePathPattern, joinPaths, pathMatchesFilter } from "./core/path-pattern.js";
export { type RawResponse, isAsyncIterable, isRawResponse, rawResponse } from "./core/raw-response.js";
export { type IncomingRequest, type LingerOptions, type OutgoingResponse, RequestHandler } from "./core/request-handler.js";
export {
  type EncodeStreamOptions,
  type EventStreamFormat,
  negotiateEventStreamFormat,
  type StreamFormat,
  encodeEventStream,
  encodeNdjsonLine,
  encodeSseFrame,
  negotiateStreamFormat,
  streamHeaders,
  toStreamEvent,
} from "./core/stream-encoding.js";
export { STREAM_KEEP_ALIVE_MS } from "./core/event-stream-response.js";
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
export {
  UI_MESSAGE_STREAM_FORMAT,
  UI_MESSAGE_STREAM_HEADERS,
  UI_MESSAGE_STREAM_REQUEST_HEADER,
  PREFERRED_STREAM_FORMAT_STATE,
  UiMessageStreamEncoder,
  fromUiChatRequest,
  isUiChatRequest,
  wantsUiMessageStream,
} from "./core/ui-message-stream.js";
export { type OptionalDependencyOptions, isMissingPackage, loadOptionalDependency, requireInstalled } from "./core/optional-dependency.js";
// Route groups, OpenAPI and metrics (issue 5).
export * from "./routes/schemas.js";
export * from "./routes/response-schemas.js";
export { createAgentRoutes } from "./routes/agent-routes.js";
export { createToolRoutes } from "./routes/tool-routes.js";
export { createMcpRoutes } from "./routes/mcp-routes.js";
export { createMemoryRoutes } from "./routes/memory-routes.js";
export { type DocsRoutesOptions, createDocsRoutes } from "./routes/docs-routes.js";
export {
  type AllRoutesOptions,
  type ProxyRoutesProvider,
  type ProxySurfaces,
  createAllRoutes,
  registerAllRoutes,
} from "./routes/all-routes.js";
export { callContextOf, requireRuntime, resourceNotFound } from "./routes/route-support.js";
export { callTokenOf, setCallToken } from "./routes/call-token.js";
export { type OpenAPIGeneratorConfig, generateOpenAPIDocument } from "./openapi/generate-openapi.js";
export { type RawResponseDocumentation, documentRawResponse } from "./openapi/raw-route.js";
export type { JsonSchema, OpenAPIDocument, OpenAPIOperation } from "./openapi/openapi-document.js";
export { zodToOpenApiSchema } from "./openapi/zod-openapi-schema.js";
export { ServerMetrics, type ServerMetricsOptions } from "./metrics/server-metrics.js";
export { METRICS_MIDDLEWARE_ORDER, createMetricsMiddleware } from "./metrics/metrics-middleware.js";
export { createMetricsRoute } from "./metrics/metrics-route.js";
export { getServerMetrics, installMetrics } from "./metrics/install-metrics.js";
export { MetricsRegistry } from "./metrics/metrics-registry.js";
export { Counter } from "./metrics/counter.js";
export { Gauge } from "./metrics/gauge.js";
export { DEFAULT_BUCKETS, Histogram, type HistogramOptions } from "./metrics/histogram.js";
export type { LabelValues, Metric, MetricJson, MetricOptions, MetricSample, MetricType } from "./metrics/metric-types.js";
export { PROMETHEUS_CONTENT_TYPE, formatPrometheusText } from "./metrics/prometheus-text.js";
export { aggregateMetrics } from "./metrics/aggregate-metrics.js";
export { type HealthRoutesOptions, createHealthRoutes } from "./routes/health-routes.js";
export { type HealthSource, checkReadiness } from "./routes/health-status.js";
export { VERSION } from "./version.js";
// Middleware (issue 4): every factory, store and helper of src/middleware.
export * from "./middleware/index.js";
export { ERROR_HANDLING_STATE_KEY, type RequestErrorHandling } from "./core/error-handling-state.js";
export type { AdapterOptions } from "./core/base-adapter.js";
// One price table for the whole server (issue 21).
export {
  DEFAULT_PRICES,
  type TokenPrice,
  type PriceTable,
  type PricedUsage,
  costOf,
  mergePrices,
  priceOf,
} from "./pricing/model-prices.js";
export {
  type RuntimeCallObserver,
  type RuntimeCallOutcome,
  observeRuntimeCall,
  observedCall,
  observedStream,
  reportRuntimeCall,
} from "./core/runtime-call-observer.js";
// Live request feed (issue 22: the operator console's "Live requests").
export {
  type RequestFeedAnnotation,
  type RequestFeedEvent,
  type RequestFeedOptions,
  RequestFeed,
  annotateRequestFeed,
  createRequestFeedMiddleware,
  installRequestFeed,
} from "./core/request-feed.js";
