import {
  createConsoleLogger,
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
} from "@conduit-ai/server-core";
import { createMemory } from "./create-memory.js";
import { type EmbedCallOptions, embedText, embedTexts } from "./embeddings.js";
import { generateWithAiSdk, streamWithAiSdk } from "./generation/ai-sdk-engine.js";
import { collectResult, type GenerationPart, type GenerationPlan } from "./generation/generation-part.js";
import { streamLocally } from "./generation/local-engine.js";
import { type PlanDependencies, planGeneration, withHistory } from "./generation/request-plan.js";
import { toStreamEvent } from "./generation/stream-events.js";
import { McpManager } from "./mcp/mcp-manager.js";
import type { ConversationStore } from "./memory/conversation-store.js";
import { anthropicProvider, openAIProvider } from "./providers/provider-config.js";
import { mapProviderError } from "./providers/provider-error.js";
import { type ConfiguredProvider, ProviderRegistry } from "./providers/provider-registry.js";
import { createInputResolver, emitProcessDeprecation } from "./resolve-input.js";
import type { RuntimeOptions } from "./runtime-options.js";
import { builtinTools } from "./tools/builtin-tools.js";
import { RuntimeToolRegistry } from "./tools/tool-registry.js";

/** The reference `Runtime` (DESIGN §4); create it with `createRuntime`. */
/** The AI SDK `timeout` from `RuntimeOptions.providerTimeout` (defaults: 10 min per call, 2 min between chunks). */
function providerTimeout(option: RuntimeOptions["providerTimeout"]): PlanDependencies["timeout"] {
  if (option === false) return undefined;
  return { stepMs: option?.stepMs ?? 600_000, chunkMs: option?.chunkMs ?? 120_000 };
}

export class ConduitRuntime implements Runtime {
  readonly providers: ProviderRegistry;
  readonly tools: RuntimeToolRegistry;
  readonly mcp: McpManager;
  readonly memory: ConversationStore;
  readonly #dependencies: PlanDependencies;
  readonly #logger: Logger;
  readonly #maxRetries: number;
  readonly #embedCall: EmbedCallOptions;

  constructor(options: RuntimeOptions = {}) {
    const environment = options.env ?? process.env;
    this.#logger = options.logger ?? createConsoleLogger("warn");
    const configured = [
      options.openai === false ? undefined : openAIProvider(options.openai, environment),
      options.anthropic === false ? undefined : anthropicProvider(options.anthropic, environment),
    ].filter((provider): provider is ConfiguredProvider => provider !== undefined);
    this.providers = new ProviderRegistry(configured, options.defaultProvider ?? environment.CONDUIT_DEFAULT_PROVIDER);
    this.tools = new RuntimeToolRegistry();
    if (options.builtinTools !== false) for (const tool of builtinTools) this.tools.register(tool);
    for (const tool of options.tools ?? []) this.tools.register(tool);
    this.mcp = new McpManager(options.mcpServers, options.mcp);
    this.tools.addSource(() => this.mcp.registryTools());
    this.memory = createMemory(options, environment, this.#logger);
    this.#maxRetries = options.maxRetries ?? 2;
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
  }

  /** Resolves once every MCP server's first connection attempt has settled. */
  ready(): Promise<void> {
    return this.mcp.ready();
  }

  #run(plan: GenerationPlan, streaming: boolean): AsyncIterable<GenerationPart> {
    if (plan.provider.languageModel === undefined) return streamLocally(plan);
    return streaming ? streamWithAiSdk(plan) : generateWithAiSdk(plan);
  }

  async #remember(sessionId: string | undefined, text: string, content: string): Promise<void> {
    if (sessionId === undefined) return;
    const timestamp = new Date().toISOString();
    await this.memory.append(sessionId, [
      { role: "user", content: text, timestamp },
      { role: "assistant", content, timestamp: new Date().toISOString() },
    ]);
  }

  async generate(request: GenerateRequest, context: RuntimeCallContext = {}): Promise<GenerateResult> {
    const plan = await withHistory(planGeneration(request, context, this.#dependencies), request.sessionId, this.#dependencies);
    const result = await collectResult(this.#run(plan, false), plan.provider.name, plan.model);
    await this.#remember(request.sessionId, plan.text, result.content);
    return result;
  }

  /** Validation errors throw synchronously (so the HTTP layer answers 400); later failures are one `error` event. */
  stream(request: GenerateRequest, context: RuntimeCallContext = {}): AsyncIterable<DataStreamEvent> {
    const plan = planGeneration(request, context, this.#dependencies);
    return this.#streamEvents(plan, request.sessionId);
  }

  async *#streamEvents(validated: GenerationPlan, sessionId: string | undefined): AsyncGenerator<DataStreamEvent> {
    let content = "";
    try {
      const plan = await withHistory(validated, sessionId, this.#dependencies);
      for await (const part of this.#run(plan, true)) {
        if (part.type === "text-delta") content += part.delta;
        yield toStreamEvent(part);
        if (part.type === "error") return;
      }
      await this.#remember(sessionId, validated.text, content);
    } catch (error) {
      yield toStreamEvent({ type: "error", error: mapProviderError(error, validated.provider.name, validated.context.signal) });
    }
  }

  embed(request: EmbedRequest, context: RuntimeCallContext = {}): Promise<EmbedResult> {
    return embedText(this.providers, request.text, request, context, this.#embedCall);
  }

  embedMany(request: EmbedManyRequest, context: RuntimeCallContext = {}): Promise<EmbedManyResult> {
    return embedTexts(this.providers, request.texts, request, context, this.#embedCall);
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
    await Promise.all([this.mcp.close(), this.memory.close?.()]);
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
