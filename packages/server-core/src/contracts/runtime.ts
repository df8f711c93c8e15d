import type { AuthenticatedUser } from "./context.js";
import type { TraceSpan } from "./tracing.js";
import type { DataStreamEvent } from "./stream-event.js";
import type { UsageLedgerReader } from "./usage.js";

/** Who is calling and why; passed from the HTTP layer to the runtime with every call. */
export interface RuntimeCallContext {
  requestId?: string;
  user?: AuthenticatedUser;
  /** Raw auth token when the runtime validates tokens itself. */
  authToken?: string;
  /** Set by the runtime from a validated `authToken` (they override whatever the caller passed). */
  userId?: string;
  userEmail?: string;
  userRoles?: string[];
  signal?: AbortSignal;
  /** The span the runtime's spans are children of (the request's, from `callContextOf(ctx)`). */
  traceSpan?: TraceSpan;
}

/** One part of a user turn: text, or an image by URL (https or a `data:` URL). */
export type ConversationPart = { type: "text"; text: string } | { type: "image"; url: string };

/**
 * One turn of a whole conversation sent by the caller (the proxy's OpenAI surfaces): the
 * vendor-neutral form of chat messages, with the client's own tool calls and their results.
 */
export type ConversationMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ConversationPart[] }
  | { role: "assistant"; content: string; toolCalls?: ToolCallRecord[] }
  | { role: "tool"; toolCallId: string; toolName: string; content: string };

/** A tool the caller declares and runs itself: the model may call it; the runtime never executes it. */
export interface ClientToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

/** Ask for a JSON answer, optionally matching a JSON Schema (structured output). */
export interface ResponseFormat {
  type: "json";
  schema?: Record<string, unknown>;
  name?: string;
}

export interface GenerateRequest {
  /** Current call style. */
  input?: { text: string };
  /**
   * A whole conversation instead of `input` (and instead of session history): structured
   * turns with the client's tool calls and results. The last turn is usually the user's.
   */
  messages?: ConversationMessage[];
  /** Tools the caller runs itself: calls to them end the generation with finish reason `tool-calls`. */
  clientTools?: ClientToolDefinition[];
  /** Which tool the model must (or must not) call. */
  toolChoice?: "auto" | "none" | "required" | { name: string };
  responseFormat?: ResponseFormat;
  stopSequences?: string[];
  topP?: number;
  seed?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  /** Legacy call style: accepted with a one-time deprecation warning. */
  prompt?: string;
  provider?: string;
  model?: string;
  system?: string;
  sessionId?: string;
  temperature?: number;
  maxTokens?: number;
  /** Tool names the model may call, or true for all registered tools. */
  tools?: string[] | boolean;
  maxSteps?: number;
}

/**
 * Tokens one generation used, as the vendor reported them. The optional details use the names of
 * `GateUsage` (`cacheReadTokens`, `cacheWriteTokens`) and are part of the counts above: cache reads
 * and writes are input tokens, reasoning tokens are output tokens. Absent when the vendor sent none.
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Input tokens served from the vendor's prompt cache. */
  cacheReadTokens?: number;
  /** Input tokens written to the vendor's prompt cache. */
  cacheWriteTokens?: number;
  /** Output tokens the model spent reasoning (thinking) before its answer. */
  reasoningTokens?: number;
}

export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolResultRecord {
  id: string;
  name: string;
  result: unknown;
}

export interface GenerateResult {
  content: string;
  provider: string;
  model: string;
  usage: TokenUsage;
  toolCalls: ToolCallRecord[];
  toolResults: ToolResultRecord[];
  finishReason: string;
  /**
   * `"unavailable"` when the call carried a `sessionId` and the conversation store could not be
   * reached: the answer was made without the history and/or the turn was not recorded. The
   * agent routes move it to the envelope's `metadata.memory` and the header `x-conduit-memory`.
   */
  memory?: "unavailable";
}

export interface EmbedRequest {
  text: string;
  provider?: string;
  model?: string;
}

export interface EmbedManyRequest {
  texts: string[];
  provider?: string;
  model?: string;
}

export interface EmbedResult {
  embedding: number[];
  provider: string;
  model: string;
  dimension: number;
}

export interface EmbedManyResult {
  embeddings: number[][];
  provider: string;
  model: string;
  count: number;
  dimension: number;
}

export interface ProviderInfo {
  name: string;
  models: string[];
  available: boolean;
  default: boolean;
}

export interface ToolInfo {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: Record<string, unknown>;
  /** `builtin`, `user` or `mcp:<server>`. */
  source: string;
  requiresConfirmation?: boolean;
}

export interface ToolSearchQuery {
  q?: string;
  source?: string;
  limit?: number;
}

export interface ToolExecuteOptions extends RuntimeCallContext {
  /** Required for tools flagged `requiresConfirmation`. */
  confirmed?: boolean;
}

export interface ToolExecutionResult {
  name: string;
  result: unknown;
  /** Milliseconds. */
  duration: number;
}

export interface ToolRegistry {
  list(): Promise<ToolInfo[]> | ToolInfo[];
  search(query: ToolSearchQuery): Promise<ToolInfo[]> | ToolInfo[];
  /** Undefined when no such tool. */
  get(name: string): Promise<ToolInfo | undefined> | ToolInfo | undefined;
  /** Throws `TOOL_NOT_FOUND` (404), a validation error (400) or `USER_CONFIRMATION_REQUIRED` (428, `userConfirmationRequired`). */
  execute(name: string, args: Record<string, unknown>, options?: ToolExecuteOptions): Promise<ToolExecutionResult>;
}

export type McpServerStatus = "connecting" | "connected" | "disconnected" | "error";

export interface McpServerInfo {
  name: string;
  status: McpServerStatus;
  transport: "stdio" | "http";
  toolCount: number;
  lastError: string | null;
}

export interface McpServers {
  list(): Promise<McpServerInfo[]>;
  get(name: string): Promise<McpServerInfo | undefined>;
  listTools(name: string): Promise<ToolInfo[]>;
  executeTool(server: string, tool: string, args: Record<string, unknown>, options?: RuntimeCallContext): Promise<ToolExecutionResult>;
}

export interface SessionInfo {
  id: string;
  messageCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface SessionMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  timestamp: string;
}

export interface SessionMessagesPage {
  sessionId: string;
  messages: SessionMessage[];
  total: number;
  limit: number;
  offset: number;
}

export interface MemoryStore {
  listSessions(): Promise<SessionInfo[]>;
  getSession(id: string): Promise<SessionInfo | undefined>;
  getMessages(id: string, page?: { limit?: number; offset?: number }): Promise<SessionMessagesPage | undefined>;
  /** False when the session did not exist. */
  deleteSession(id: string): Promise<boolean>;
  clearSession(id: string): Promise<boolean>;
}

export interface DependencyHealth {
  status: "ok" | "degraded" | "down";
  /** Whether readiness requires it. */
  required: boolean;
  latencyMs?: number;
  message?: string;
  /** Figures the dependency reports about itself (e.g. `bufferedEvents` of a history store writing behind). */
  details?: Record<string, number | string | boolean>;
}

export interface RuntimeHealth {
  status: "ok" | "degraded" | "down";
  dependencies: Record<string, DependencyHealth>;
}

/**
 * The AI runtime the route groups call (docs/design.md §4). `@conduit-ai/runtime` is the
 * reference implementation; any object of this shape can be served.
 */
export interface Runtime {
  generate(request: GenerateRequest, context?: RuntimeCallContext): Promise<GenerateResult>;
  /** Stream events; stops and releases upstream work when `context.signal` aborts. */
  stream(request: GenerateRequest, context?: RuntimeCallContext): AsyncIterable<DataStreamEvent>;
  /**
   * Checks a call's `authToken` now, before a stream is opened, so a refused token is an HTTP
   * 401 rather than an `error` event on a 200 stream. Resolves to the context to call with (the
   * token's identity in it, the token itself spent); rejects with the same error the call would.
   * Optional: a runtime without per-call tokens leaves it out.
   */
  authorizeCall?(context: RuntimeCallContext): Promise<RuntimeCallContext>;
  /**
   * Opens a stream once the call may start: what refuses it (a gatekeeper's budget, rate limit or
   * key) rejects here, so it is an HTTP status rather than an `error` event on a 200 stream.
   * Optional: without it `/agent/stream` calls `stream`, whose first event says how it went.
   */
  openStream?(request: GenerateRequest, context?: RuntimeCallContext): Promise<AsyncIterable<DataStreamEvent>>;
  embed(request: EmbedRequest, context?: RuntimeCallContext): Promise<EmbedResult>;
  embedMany(request: EmbedManyRequest, context?: RuntimeCallContext): Promise<EmbedManyResult>;
  listProviders(): Promise<ProviderInfo[]>;
  tools: ToolRegistry;
  mcp: McpServers;
  memory: MemoryStore;
  health(): Promise<RuntimeHealth>;
  /** The usage ledger of generate/stream/embed calls, when the runtime keeps one (the `/api/ai` analysis reads it). */
  usage?: UsageLedgerReader;
  /** Releases connections (MCP clients, Redis). */
  close?(): Promise<void>;
}
