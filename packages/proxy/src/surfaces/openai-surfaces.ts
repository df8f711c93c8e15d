import type { PriceTable } from "@conduit-ai/server-core";
import type { ResponseCache } from "../cache/response-cache.js";
import type { RouteDefinition, Runtime } from "@conduit-ai/server-core";
import type { ClientAdmission } from "../admission/client-admission.js";
import { createClientCheck } from "../admission/client-auth.js";
import { createModelsRoutes } from "./models/models-route.js";
import { UPGRADE_REFUSAL_BODY, createUpgradeRefusalRoute } from "./probes/client-probes.js";
import { type ModelRoute, type ModelTable, createModelTable } from "../routing/model-table.js";
import type { RelayMessages } from "../targets/anthropic/messages-relay.js";
import type { SendMessages } from "../targets/anthropic/send-messages.js";
import { createChatCompletionsRoute } from "./chat-completions/chat-completions-route.js";
import { createEmbeddingsRoute } from "./embeddings/embeddings-route.js";
import type { ResponseStore } from "./responses/response-store.js";
import { createResponsesRoute } from "./responses/responses-route.js";

export interface OpenAISurfaceOptions {
  /** `max_tokens` for Claude models when the client sets none (default 4096). */
  defaultMaxTokens?: number;
  isClaudeModel?: (model: string) => boolean;
  /** Leave out parameters a model cannot honour instead of a 400 naming them. */
  dropParams?: boolean;
}

/** What the OpenAI-compatible surfaces need of a proxy. */
export interface OpenAISurfaceHost {
  sendMessages: SendMessages;
  /** The pool's relay behind `sendMessages` (a proxy's): the surfaces send through it when given. */
  relayMessages?: RelayMessages;
  responseStore?: ResponseStore;
  config: {
    clientKeys: readonly string[];
    sessionHeader: string;
    timeoutMs?: number;
    dropParams?: boolean;
    /** The `models` routing table (public names → targets and fallbacks). */
    models?: Record<string, ModelRoute>;
    /** The pool's accounts: without an Anthropic one, `/v1/models` lists no Claude model (absent: listed). */
    accounts?: readonly { vendor?: string }[];
  };
  /** The proxy's admission (client keys or its gate, then the per-credential limit). */
  admission?: ClientAdmission;
  /** The proxy's routing table (shared figures for `least-busy` and `latency`); built from `config.models` when absent. */
  models?: ModelTable;
  /** The proxy's response cache, and the prices what a hit saves is counted at. */
  responseCache?: ResponseCache;
  prices?: PriceTable;
}

/**
 * The `chatCompletions` option of `createProxy`: every OpenAI-compatible surface over that
 * proxy's pool and client keys — `/v1/chat/completions`, `/v1/responses`, `/v1/models` and,
 * with a runtime, `/v1/embeddings`. Non-Claude models are answered by `runtime`.
 *
 * @example
 * const proxy = createProxy(config, { chatCompletions: chatCompletionsFor(runtime) });
 */
export function chatCompletionsFor(runtime?: Runtime, extra: OpenAISurfaceOptions = {}) {
  return (proxy: OpenAISurfaceHost): RouteDefinition[] => {
    const isClientAllowed = createClientCheck(proxy.config.clientKeys);
    const forwardHeaders = [proxy.config.sessionHeader];
    const dropParams = extra.dropParams ?? proxy.config.dropParams ?? false;
    const models =
      proxy.models && !extra.isClaudeModel ? proxy.models : createModelTable(proxy.config.models ?? {}, extra.isClaudeModel ?? {});
    const shared = {
      ...extra,
      dropParams,
      models,
      sendMessages: proxy.sendMessages,
      ...(proxy.relayMessages ? { relayMessages: proxy.relayMessages } : {}),
      isClientAllowed,
      forwardHeaders,
      ...(runtime ? { runtime } : {}),
    };
    const routes = [
      createChatCompletionsRoute({
        ...shared,
        // A non-streaming answer only starts once the model finished: the proxy's 10 minutes, not the server's 30 s.
        ...(proxy.config.timeoutMs !== undefined ? { timeoutMs: proxy.config.timeoutMs } : {}),
        ...(proxy.admission ? { admission: proxy.admission } : {}),
        ...(proxy.responseCache ? { cache: proxy.responseCache, ...(proxy.prices ? { prices: proxy.prices } : {}) } : {}),
      }),
      createResponsesRoute({
        ...shared,
        ...(proxy.admission ? { admission: proxy.admission } : {}),
        ...(proxy.responseStore ? { store: proxy.responseStore } : {}),
        ...(proxy.responseCache ? { cache: proxy.responseCache, ...(proxy.prices ? { prices: proxy.prices } : {}) } : {}),
        ...(proxy.config.timeoutMs ? { timeoutMs: proxy.config.timeoutMs } : {}),
      }),
      // Codex with `openai_base_url` tries `ws://<base>/responses` first: a 426 sends it to HTTP at once.
      createUpgradeRefusalRoute("/v1/responses", UPGRADE_REFUSAL_BODY),
      ...createModelsRoutes({
        isClientAllowed,
        aliases: () => models.aliases(),
        targetsOf: (alias) => models.configured(alias),
        servesClaude: proxy.config.accounts?.some((account) => (account.vendor ?? "anthropic") === "anthropic") ?? true,
        ...(proxy.admission ? { admission: proxy.admission } : {}),
        ...(runtime ? { runtime } : {}),
      }),
    ];
    if (runtime)
      routes.push(createEmbeddingsRoute({ isClientAllowed, runtime, ...(proxy.admission ? { admission: proxy.admission } : {}) }));
    return routes;
  };
}
