/**
 * @conduit-ai/server-core — contracts and the framework-neutral core of Conduit.
 * Adapters (`@conduit-ai/adapter-*`) translate a framework to this core; everything
 * users see is decided here once.
 *
 * The main entry is the stable surface: contracts, errors, configuration, `createServer`,
 * `BaseServerAdapter`, route and middleware definitions and the built-in route groups.
 * Building blocks live on subpaths — `./middleware`, `./metrics`, `./openapi`, `./node`,
 * `./web`, `./testing` — and everything else is internal (tagged so in its JSDoc, stripped from the
 * published types), free to change in any release. `src/public-api.test.ts` holds the line.
 */
export {
  DATA_STREAM_EVENT_TYPES,
  HTTP_METHODS,
  MAX_OUTPUT_TOKENS_LIMIT,
  SERVER_FRAMEWORKS,
  SERVER_LIFECYCLE_STATES,
  defineRoute,
  getTracing,
  noopTracing,
  setTracing,
  withSpan,
} from "./contracts/index.js";
export type {
  AuthenticatedUser,
  BodyParserConfig,
  CORSConfig,
  CORSOriginFunction,
  CORSOriginMatcher,
  ClientToolDefinition,
  ContextResponse,
  ConversationMessage,
  ConversationPart,
  CreateServerOptions,
  DataStreamEvent,
  DataStreamEventType,
  DependencyHealth,
  EmbedManyRequest,
  EmbedManyResult,
  EmbedRequest,
  EmbedResult,
  ErrorShape,
  ErrorWriter,
  ErrorWriterRequest,
  FrameworkAppOf,
  FrameworkApps,
  Gate,
  GateAdmission,
  GateGuardrailHit,
  GateIdentity,
  GateRefusal,
  GateRefusalReason,
  GateRequest,
  GateReservationOutcome,
  GateSurface,
  GateUsage,
  GenerateRequest,
  GenerateResult,
  HealthConfig,
  HttpMethod,
  IncomingHeaders,
  KeyLease,
  KeyOutcome,
  KeySource,
  LogLevel,
  LoggingConfig,
  MatchedRoute,
  McpAccessPolicy,
  McpServerInfo,
  McpServerStatus,
  McpServers,
  MemoryStore,
  MetricsConfig,
  MiddlewareDefinition,
  ModelPrice,
  Next,
  PathParams,
  ProviderInfo,
  QueryValues,
  RateLimitConfig,
  RedactionConfig,
  RegisteredRoute,
  RequiredServerAdapterConfig,
  ResponseBody,
  ResponseFormat,
  ResponseHeaders,
  RouteContext,
  RouteDefinition,
  RouteGroup,
  RouteHandler,
  RouteOptions,
  RouteSchemas,
  Runtime,
  RuntimeCallContext,
  RuntimeHealth,
  ServerAdapter,
  ServerAdapterConfig,
  ServerAdapterEventName,
  ServerAdapterEvents,
  ServerContext,
  ServerFramework,
  ServerLifecycleState,
  ServerStatus,
  SessionInfo,
  SessionMessage,
  SessionMessagesPage,
  ShutdownConfig,
  StreamingConfig,
  TokenUsage,
  ToolCallRecord,
  ToolExecuteOptions,
  ToolExecutionResult,
  ToolInfo,
  ToolRegistry,
  ToolResultRecord,
  ToolSearchQuery,
  TraceAttributeValue,
  TraceAttributes,
  TraceSpan,
  TraceSpanKind,
  TraceSpanOptions,
  Tracing,
  TrustProxyConfig,
  UsageAggregate,
  UsageBucket,
  UsageLedgerReader,
  UsageLedgerRecord,
  UsageOperation,
  UsageQuery,
  UsageReport,
  WrittenError,
} from "./contracts/index.js";
export {
  AlreadyRunningError,
  AuthenticationError,
  AuthorizationError,
  ConfigurationError,
  ErrorCategory,
  ErrorCode,
  ErrorSeverity,
  HandlerError,
  InvalidAuthenticationError,
  MissingDependencyError,
  NotRunningError,
  RouteConflictError,
  RouteNotFoundError,
  ServerAdapterError,
  ServerRateLimitError,
  ServerStartError,
  ServerStopError,
  ServerValidationError,
  StoreUnavailableError,
  StreamAbortedError,
  StreamingError,
  TimeoutError,
  WebSocketConnectionError,
  WebSocketError,
  formatZodIssues,
  getRecoveryStrategy,
  isStoreUnavailable,
  recoveryStrategies,
  serviceUnavailable,
  storeCall,
  summarizeIssues,
  userConfirmationRequired,
  wrapError,
  zodIssueField,
} from "./errors/index.js";
export type {
  FormatZodIssuesOptions,
  PackageManager,
  RecoveryAction,
  RecoveryStrategy,
  SerializedServerError,
  ServerErrorOptions,
  ValidationIssue,
  ZodIssueLike,
} from "./errors/index.js";
export { DEFAULT_SERVER_CONFIG } from "./config/defaults.js";
export { serverAdapterConfigSchema } from "./config/config-schema.js";
export { type ConfigIssue, resolveConfig, validateFramework } from "./config/resolve-config.js";
export { type AdapterOptions, type BeforeCloseHook, BaseServerAdapter } from "./adapter/base-adapter.js";
export { type AdapterClass, type AdapterFactory, createAdapterFactory } from "./adapter/adapter-factory.js";
export type { ServerTransport } from "./core/lifecycle/server-transport.js";
export { ADAPTER_PACKAGES, type AdapterModule, type CreateServerWithAdapterOptions, createServer } from "./adapter/create-server.js";
export { type MountOptions, mountedConfig, prepareMounted } from "./adapter/mounting.js";
export type { ErrorFormatOptions, ErrorResponse, SuccessEnvelope } from "./core/errors/envelope.js";
export { type Logger, createConsoleLogger, silentLogger } from "./core/lifecycle/logger.js";
export { type RawResponse, isRawResponse, rawResponse } from "./core/pipeline/raw-response.js";
export type { RequestHandler, IncomingRequest, LingerOptions, OutgoingResponse } from "./core/pipeline/request-handler.js";
export type { DependencyCheck } from "./core/lifecycle/dependency-checks.js";
export { type OptionalDependencyOptions, importOptionalDependency, loadOptionalDependency } from "./core/lifecycle/optional-dependency.js";
// The built-in route groups and what a route handler needs from the core.
export { createAgentRoutes } from "./routes/agent-routes.js";
export { createToolRoutes } from "./routes/tool-routes.js";
export { createMcpRoutes } from "./routes/mcp-routes.js";
export { createMemoryRoutes } from "./routes/memory-routes.js";
export { type DocsRoutesOptions, createDocsRoutes } from "./routes/docs-routes.js";
export { type HealthRoutesOptions, createHealthRoutes } from "./routes/health-routes.js";
export type { HealthSource } from "./routes/health-status.js";
export {
  type AllRoutesOptions,
  type ProxyRoutesProvider,
  type ProxySurfaces,
  createAllRoutes,
  registerAllRoutes,
} from "./routes/all-routes.js";
export { callContextOf, requireRuntime, resourceNotFound } from "./routes/route-support.js";
export type { GenerateRequestBody } from "./routes/schemas.js";
export { VERSION } from "./version.js";
// One price table for the whole server: the proxy, the runtime's ledger and governance (the rest of it on ./pricing).
export {
  DEFAULT_PRICES,
  type TokenPrice,
  type PriceTable,
  type PriceTier,
  MAX_TOKEN_PRICE,
  mergePrices,
  mostExpensivePrice,
  priceOf,
  vendorFamilyOf,
} from "./pricing/model-prices.js";
export type { MeteredUsage } from "./pricing/metered-usage.js";
export { costOf } from "./pricing/usage-cost.js";
export { outputLimitOf } from "./pricing/model-output-limits.js";
