import {
  type DataStreamEvent,
  type DependencyHealth,
  type EmbedManyRequest,
  type EmbedManyResult,
  type EmbedRequest,
  type EmbedResult,
  type GenerateRequest,
  type GenerateResult,
  type Logger,
  type ProviderInfo,
  type Runtime,
  type RuntimeCallContext,
  type RuntimeHealth,
  type TokenUsage,
  createConsoleLogger,
} from "@conduit-ai/server-core";
import { CallTokenAuth } from "./auth/call-token-auth.js";
import { createMemory } from "./create-memory.js";
import { type EmbedCallOptions, embedText, embedTexts } from "./embeddings.js";
import { generateWithAiSdk } from "./generation/ai-sdk-engine.js";
import { streamWithModel } from "./generation/ai-sdk-model-stream.js";
import { streamChatCompletions } from "./generation/chat-completions-engine.js";
import { collectResult, type GenerationPart, type GenerationPlan } from "./generation/generation-part.js";
import { streamLocally } from "./generation/local-engine.js";
import { type PlanDependencies, planGeneration } from "./generation/request-plan.js";
import { toStreamEvent } from "./generation/stream-events.js";
import { traceGeneration } from "./generation/trace-generation.js";
import { McpManager } from "./mcp/mcp-manager.js";
import type { ConversationStore } from "./memory/conversation-store.js";
import { memoryOptionsOf } from "./memory/memory-options.js";
import { TurnMemory, withMemoryUnavailable } from "./memory/turn-memory.js";
import { configureProvider } from "./providers/configured-provider.js";
import { environmentProviders } from "./providers/provider-config.js";
import { mapProviderError } from "./providers/provider-error.js";
import { ProviderRegistry } from "./providers/provider-registry.js";
import { parseProvidersConfig } from "./providers/providers-config.js";
import { createInputResolver, emitProcessDeprecation } from "./resolve-input.js";
import type { RuntimeOptions } from "./runtime-options.js";
import { builtinTools } from "./tools/builtin-tools.js";
import type { UsageRecord } from "./usage-record.js";
import { RuntimeToolRegistry } from "./tools/tool-registry.js";
import { createUsageLedger } from "./usage/create-usage-ledger.js";
import { recordUsage } from "./usage/record-usage.js";
import { reportGenerationUsage } from "./usage/report-generation-usage.js";
import type { UsageLedger } from "./usage/usage-ledger.js";

/** The AI SDK `timeout` from `RuntimeOptions.providerTimeout` (defaults: 10 min per call, 2 min between chunks). */
function providerTimeout(option: RuntimeOptions["providerTimeout"]): PlanDependencies["timeout"] {
  if (option === false) return undefined;
  return { stepMs: option?.stepMs ?? 600_000, chunkMs: option?.chunkMs ?? 120_000 };
}

/** The reference `Runtime` (docs/design.md §4); create it with `createRuntime`. */
export class ConduitRuntime implements Runtime {
  readonly providers: ProviderRegistry;
  readonly tools: RuntimeToolRegistry;
  readonly mcp: McpManager;
  readonly memory: ConversationStore;
  /** Every generate/stream/embed call with tokens, latency and cost (undefined with `usage: false`). */
  readonly usage: UsageLedger | undefined;
  readonly #dependencies: PlanDependencies;
  readonly #logger: Logger;
  readonly #maxRetries: number;
  readonly #embedCall: EmbedCallOptions;
  readonly #onUsage: ((record: UsageRecord) => void) | undefined;
  readonly #tokenAuth: CallTokenAuth;
  readonly #turnMemory: TurnMemory;

  constructor(options: RuntimeOptions = {}) {
    const environment = options.env ?? process.env;
    this.#logger = options.logger ?? createConsoleLogger("warn");
    // The `providers` config first (in its order), then the environment's shortcuts it does not name.
    const named = parseProvidersConfig(options.providers, environment);
    const entries = [...named, ...environmentProviders(options, environment, new Set(named.map((entry) => entry.name)))];
    const setup = {
      environment,
      keySources: options.keySources,
      warn: (message: string) => this.#logger.warn({ component: "runtime" }, message),
    };
    this.providers = new ProviderRegistry(
      entries.map((entry) => configureProvider(entry, setup)),
      options.defaultProvider ?? environment.CONDUIT_DEFAULT_PROVIDER,
    );
    this.tools = new RuntimeToolRegistry();
    if (options.builtinTools !== false) for (const tool of builtinTools) this.tools.register(tool);
    for (const tool of options.tools ?? []) this.tools.register(tool);
    this.mcp = new McpManager(options.mcpServers, options.mcp);
    this.tools.addSource(() => this.mcp.registryTools());
    this.memory = createMemory(options, environment, this.#logger);
    this.usage = createUsageLedger(options, environment, this.#logger);
    this.#maxRetries = options.maxRetries ?? 2;
    this.#onUsage = options.onUsage;
    this.#tokenAuth = new CallTokenAuth(options.auth);
    const warn = options.onDeprecation ?? emitProcessDeprecation;
    const timeout = providerTimeout(options.providerTimeout);
    this.#embedCall = { maxRetries: this.#maxRetries, timeoutMs: timeout?.stepMs };
    this.#dependencies = {
      providers: this.providers,
      tools: this.tools,
      memory: this.memory,
      resolveText: createInputResolver(warn),
      maxRetries: this.#maxRetries,
      timeout,
      maxSteps: options.maxSteps ?? 5,
      historyLimit: options.historyLimit ?? 20,
    };
    this.#turnMemory = new TurnMemory(this.memory, memoryOptionsOf(options.memory).onUnavailable, this.#logger, this.#dependencies);
  }

  /** Resolves once every MCP server's first connection attempt has settled. */
  ready(): Promise<void> {
    return this.mcp.ready();
  }

  /**
   * Imports every configured provider's AI SDK package now instead of on its first call; rejects
   * with `MissingDependencyError` (naming the install line) when one is not installed. The
   * server commands await it before they listen.
   */
  loadProviders(): Promise<void> {
    return this.providers.load();
  }

  #run(plan: GenerationPlan, streaming: boolean): AsyncIterable<GenerationPart> {
    return traceGeneration(plan, (traced) => this.#engine(traced, streaming));
  }

  #engine(plan: GenerationPlan, streaming: boolean): AsyncIterable<GenerationPart> {
    if (plan.provider.languageModel === undefined) return streamLocally(plan);
    if (!streaming) return generateWithAiSdk(plan);
    const endpoint = plan.provider.chatCompletions;
    return endpoint === undefined ? streamWithModel(plan) : streamChatCompletions(plan, endpoint);
  }

  async generate(request: GenerateRequest, context: RuntimeCallContext = {}): Promise<GenerateResult> {
    planGeneration(request, context, this.#dependencies);
    // The request is checked first (400), then the token (401); the plan is made with the token's identity.
    const validated = planGeneration(request, await this.#tokenAuth.apply(context), this.#dependencies);
    const call = {
      provider: validated.provider.name,
      model: validated.model,
      operation: "generate" as const,
      startedAt: performance.now(),
    };
    let plan: GenerationPlan;
    let result: GenerateResult;
    let memoryDown = false;
    try {
      ({ plan, unavailable: memoryDown } = await this.#turnMemory.withHistory(validated, request.sessionId));
      result = await collectResult(this.#run(plan, false), plan.provider.name, plan.model);
    } catch (error) {
      await recordUsage(this.usage, { ...call, failed: true });
      throw error;
    }
    await recordUsage(this.usage, { ...call, usage: result.usage });
    reportGenerationUsage(this.#onUsage, this.#logger, plan, request.sessionId, {
      outcome: "finish",
      usage: result.usage,
      usageReported: true,
      outputCharacters: result.content.length,
    });
    const recorded = await this.#turnMemory.remember(request.sessionId, plan.text, result.content);
    return memoryDown || !recorded ? { ...result, memory: "unavailable" } : result;
  }

  /**
   * Validates the call's `authToken` now (`InvalidTokenError` when refused): the HTTP layer asks
   * before it opens a stream. The context it returns carries the token's identity and no token,
   * so the call it is passed to does not validate it twice.
   */
  async authorizeCall(context: RuntimeCallContext): Promise<RuntimeCallContext> {
    const checked = await this.#tokenAuth.apply(context);
    if (checked === context) return context;
    const { authToken: _spent, ...validated } = checked;
    return validated;
  }

  /**
   * Validation errors throw synchronously (so the HTTP layer answers 400); a refused `authToken`
   * rejects the first read with `InvalidTokenError` (before any event); later failures are one `error` event.
   */
  stream(request: GenerateRequest, context: RuntimeCallContext = {}): AsyncIterable<DataStreamEvent> {
    const plan = planGeneration(request, context, this.#dependencies);
    return this.#streamEvents(plan, request, request.sessionId);
  }

  async *#streamEvents(checked: GenerationPlan, request: GenerateRequest, sessionId: string | undefined): AsyncGenerator<DataStreamEvent> {
    let content = "";
    const context = await this.#tokenAuth.apply(checked.context);
    const validated = context === checked.context ? checked : planGeneration(request, context, this.#dependencies);
    let outputCharacters = 0;
    const call = { provider: validated.provider.name, model: validated.model, operation: "stream" as const, startedAt: performance.now() };
    let usage: TokenUsage | undefined;
    let failed = false;
    try {
      const { plan, unavailable } = await this.#turnMemory.withHistory(validated, sessionId);
      let finish: DataStreamEvent | undefined;
      for await (const part of this.#run(plan, true)) {
        if (part.type === "text-delta") {
          outputCharacters += part.delta.length;
          // The answer itself is kept only for the session's memory: a stream without a session holds no copy.
          if (sessionId !== undefined) content += part.delta;
        }
        if (part.type === "finish") {
          usage = part.usage;
          // Held until the turn is recorded: the last event says whether memory kept it.
          finish = toStreamEvent(part);
          continue;
        }
        if (part.type === "error") failed = true;
        yield toStreamEvent(part);
        if (part.type === "error") return;
      }
      const recorded = await this.#turnMemory.remember(sessionId, validated.text, content);
      if (finish) yield unavailable || !recorded ? withMemoryUnavailable(finish) : finish;
    } catch (error) {
      failed = true;
      yield toStreamEvent({ type: "error", error: mapProviderError(error, validated.provider.name, validated.context.signal) });
    } finally {
      // Also when the consumer went away mid-stream (its return() lands here): the provider spent tokens.
      // Aborted: the caller's signal, or a consumer that stopped pulling before the finish.
      const outcome = validated.context.signal?.aborted ? "aborted" : failed ? "error" : usage === undefined ? "aborted" : "finish";
      reportGenerationUsage(this.#onUsage, this.#logger, validated, sessionId, {
        outcome,
        usage: usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        usageReported: usage !== undefined,
        outputCharacters,
      });
      // The ledger counts an abandoned stream as a call with the tokens the provider reported (none when unknown).
      await recordUsage(this.usage, { ...call, ...(usage === undefined ? {} : { usage }), failed: outcome === "error" });
    }
  }

  /** Embeds through `run` and records the call in the usage ledger. */
  async #embedRecorded<T>(run: (call: EmbedCallOptions) => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    let used: { provider: string; model: string; inputTokens: number } | undefined;
    const result = await run({ ...this.#embedCall, onUsage: (provider, model, inputTokens) => (used = { provider, model, inputTokens }) });
    if (used)
      await recordUsage(this.usage, {
        provider: used.provider,
        model: used.model,
        operation: "embed",
        startedAt,
        usage: { inputTokens: used.inputTokens, outputTokens: 0, totalTokens: used.inputTokens },
      });
    return result;
  }

  async embed(request: EmbedRequest, context: RuntimeCallContext = {}): Promise<EmbedResult> {
    const checked = await this.#tokenAuth.apply(context);
    return this.#embedRecorded((call) => embedText(this.providers, request.text, request, checked, call));
  }

  async embedMany(request: EmbedManyRequest, context: RuntimeCallContext = {}): Promise<EmbedManyResult> {
    const checked = await this.#tokenAuth.apply(context);
    return this.#embedRecorded((call) => embedTexts(this.providers, request.texts, request, checked, call));
  }

  async listProviders(): Promise<ProviderInfo[]> {
    return this.providers.list();
  }

  async health(): Promise<RuntimeHealth> {
    const dependencies: Record<string, DependencyHealth> = {};
    if (this.memory.ping) {
      const started = performance.now();
      try {
        await this.memory.ping();
        dependencies.redis = { status: "ok", required: true, latencyMs: Math.round(performance.now() - started) };
      } catch (error) {
        dependencies.redis = { status: "down", required: true, message: error instanceof Error ? error.message : String(error) };
      }
    }
    Object.assign(dependencies, await this.mcp.health());
    const values = Object.values(dependencies);
    const status = values.some((entry) => entry.required && entry.status === "down")
      ? "down"
      : values.some((entry) => entry.status !== "ok")
        ? "degraded"
        : "ok";
    return { status, dependencies };
  }

  async close(): Promise<void> {
    this.providers.close();
    await Promise.all([this.mcp.close(), this.memory.close?.(), this.usage?.close?.(), this.#tokenAuth.close()]);
  }
}

/**
 * Creates the reference runtime from options and the environment. With nothing configured
 * it runs offline on the embedded `local` provider and in-memory sessions.
 *
 * @example
 * const runtime = createRuntime();
 * const result = await runtime.generate({ input: { text: "What is 2 + 3?" }, tools: true });
 * result.content; // "Local answer: 2 + 3 = 5 (computed with the calculator tool)."
 */
export function createRuntime(options: RuntimeOptions = {}): ConduitRuntime {
  return new ConduitRuntime(options);
}
