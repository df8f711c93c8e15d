import { randomUUID } from "node:crypto";
import { mergePrices, type PriceTable, type RouteDefinition, type Runtime, type ServerContext } from "@conduit-ai/server-core";
import { CallAdmission } from "../../admission/call-admission.js";
import type { ClientAdmission } from "../../admission/client-admission.js";
import { clientKeyRefusal } from "../../admission/client-auth.js";
import type { ResponseCache } from "../../cache/response-cache.js";
import { type ModelTable, createModelTable, reachable } from "../../routing/model-table.js";
import { createTargets } from "../../routing/targets.js";
import type { RelayMessages } from "../../targets/anthropic/messages-relay.js";
import { type SendMessages, relayMessagesOf } from "../../targets/anthropic/send-messages.js";
import { chatRequestSchema } from "../../wire/openai-chat/chat-request-schema.js";
import { OpenAIWireError, invalidRequest, invalidRequestFromIssues } from "../../wire/openai-chat/openai-wire-error.js";
import { guardRequest } from "../guardrails/guard-request.js";
import { openaiFailureOf } from "../openai-failure.js";
import { passedOnHeaders, readJsonText } from "../openai-request.js";
import { serveTranslated } from "../translated-call.js";
import { chatAnswerSavings } from "./chat-cache.js";
import { chatResponseOf } from "./chat-encoder.js";

export interface ChatCompletionsRouteOptions {
  /** Sends Messages API requests through the account pool; Claude models go here. */
  sendMessages: SendMessages;
  /** The pool's relay itself (a proxy's `relayMessages`): used instead of `sendMessages`, without its WHATWG `Response`. */
  relayMessages?: RelayMessages;
  /**
   * Who may call (the proxy's `createClientCheck(clientKeys)`); refused callers get OpenAI's 401
   * before their body is read. Required so that forgetting it cannot open the surface.
   */
  isClientAllowed: (ctx: ServerContext) => boolean;
  /**
   * The proxy's admission (client keys or its gate, then the per-credential limit); when given it
   * replaces `isClientAllowed`, and the route leaves the server's per-address limit.
   */
  admission?: ClientAdmission;
  /** Time until the answer starts, instead of the server's (the proxy's `timeoutMs`, 10 minutes). */
  timeoutMs?: number;
  /** Answers every other model with its providers (`local` included); without one they are 404 `model_not_found`. */
  runtime?: Runtime;
  /** `max_tokens` for Claude models when the client sets none (default 4096). */
  defaultMaxTokens?: number;
  /** Client headers passed on to the pool (e.g. its sticky-session header). */
  forwardHeaders?: string[];
  /** Which models go to the Messages API (default: names starting with `claude`). */
  isClaudeModel?: (model: string) => boolean;
  /** Leave out parameters a model cannot honour instead of a 400 naming them (default false). */
  dropParams?: boolean;
  /** The `models` routing table: public names → targets and fallbacks (default: each name is its own target). */
  models?: ModelTable;
  /** The proxy's exact response cache (see the README's "Response cache"). */
  cache?: ResponseCache;
  /** What a cache hit saves is counted at these prices (default: the defaults). */
  prices?: PriceTable;
}

const isClaudeByName = (model: string) => /^claude/i.test(model);

const unauthorized = (ctx: ServerContext) =>
  new OpenAIWireError(401, clientKeyRefusal(ctx), "invalid_request_error", null, "invalid_api_key");

/** `chatcmpl-…`, as OpenAI spells a completion's id. */
export function newCompletionId(): string {
  return `chatcmpl-${randomUUID().replace(/-/g, "")}`;
}

/**
 * `POST /v1/chat/completions`: OpenAI's Chat Completions for Claude models (translated to the
 * Messages API and looped through the pool) and for the runtime's providers, JSON or SSE,
 * errors in OpenAI's `{error:{message,type,param,code}}` shape. The route reads, admits and
 * routes; the targets translate; the answer is encoded here, the same way whoever served it.
 *
 * @example
 * adapter.registerRoute(createChatCompletionsRoute({ sendMessages: proxy.sendMessages, isClientAllowed: createClientCheck(keys), runtime }));
 */
export function createChatCompletionsRoute(options: ChatCompletionsRouteOptions): RouteDefinition {
  const translation = { defaultMaxTokens: options.defaultMaxTokens ?? 4096, dropParams: options.dropParams ?? false };
  const models = options.models ?? createModelTable({}, options.isClaudeModel ?? isClaudeByName);
  const prices = options.prices ?? mergePrices();
  const targets = createTargets({
    relayMessages: options.relayMessages ?? relayMessagesOf(options.sendMessages),
    runtime: options.runtime,
  });
  return {
    method: "POST",
    path: "/v1/chat/completions",
    absolute: true,
    streaming: true,
    summary: "OpenAI-compatible chat completions",
    tags: ["proxy"],
    rawBody: true,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.admission ? { rateLimit: false as const } : {}),
    handler: async (ctx: ServerContext) => {
      // The precheck throws outside the try: the route group's error writer answers in OpenAI's shape.
      const call = CallAdmission.start(ctx, {
        admission: options.admission,
        isClientAllowed: options.isClientAllowed,
        unauthorized,
        invalidRequest: (message, field) => invalidRequest(message, field),
      });
      try {
        call.checkClient();
        const { text, body } = await readJsonText(ctx);
        if (body === null || typeof body !== "object" || Array.isArray(body))
          throw invalidRequest("The request body must be a JSON object");
        const parsed = chatRequestSchema.safeParse(body);
        if (!parsed.success) throw invalidRequestFromIssues(parsed.error);
        const request = parsed.data;
        const admitted = await call.admit("openai", body as Record<string, unknown>, request.model, {
          text,
          ...reachable(models, request.model),
        });
        await guardRequest(admitted?.guard, request, { surface: "openai-chat", model: request.model });
        const headers = passedOnHeaders(ctx, options.forwardHeaders);
        const meta = {
          id: newCompletionId(),
          created: Math.floor(Date.now() / 1000),
          includeUsage: request.stream_options?.include_usage === true,
        };
        return await serveTranslated(
          ctx,
          { models, targets },
          {
            surfaceRequest: { wire: "openai-chat", request, translation },
            model: request.model,
            text,
            admission: call,
            admitted,
            headers,
            cache: { store: options.cache, body: body as Record<string, unknown>, savings: chatAnswerSavings(prices, request.model) },
          },
          (answer, model) => chatResponseOf(answer, { ...meta, model }),
        );
      } catch (error) {
        // Nothing settled: gone before an answer (the reservation stands) or failed before upstream.
        return call.failed(error, (failure) => openaiFailureOf(failure).toResponse());
      }
    },
  };
}
