import { type MiddlewareDefinition, type RouteDefinition, type Runtime, ServerAdapterError, callContextOf, rawResponse } from "@conduit-ai/server-core";
import { STREAM_HEADERS, completeWithClaude } from "./claude-completion.js";
import { chatRequestSchema, paramOf } from "./chat-request-schema.js";
import { OpenAIError, invalidRequest } from "./openai-error.js";
import { fromRuntimeError, generateWithRuntime, newCompletionId, resolveRuntimeModel, streamWithRuntime } from "./runtime-completion.js";
import type { SendMessages } from "./send-messages.js";

export interface ChatCompletionsRouteOptions {
  /** Sends Messages API requests through the account pool; Claude models go here. */
  sendMessages: SendMessages;
  /** Answers every other model with its providers (`local` included); without one they are 404 `model_not_found`. */
  runtime?: Runtime;
  /** `max_tokens` for Claude models when the client sets none (default 4096). */
  defaultMaxTokens?: number;
  /** Which models go to the Messages API (default: names starting with `claude`). */
  isClaudeModel?: (model: string) => boolean;
}

const isClaudeByName = (model: string) => /^claude/i.test(model);

/**
 * The body is read here so that malformed JSON, a body too large or of another media type is
 * answered in OpenAI's error shape rather than the server's envelope.
 */
const readBodyInOpenAIShape: MiddlewareDefinition = {
  name: "openai-request-body",
  handler: async (ctx, next) => {
    try {
      ctx.body = await ctx.readBody();
    } catch (error) {
      const status = ServerAdapterError.isInstance(error) ? error.statusCode : 400;
      const failure = new OpenAIError(status, status === 400 ? "We could not parse the JSON body of your request." : (error as Error).message, "invalid_request_error");
      const response = failure.toResponse();
      ctx.response.status = response.status;
      ctx.setHeader("content-type", "application/json");
      ctx.response.body = response.body;
      return;
    }
    await next();
  },
};

/**
 * `POST /v1/chat/completions`: OpenAI's Chat Completions for Claude models (translated to the
 * Messages API and looped through the pool) and for the runtime's providers, JSON or SSE,
 * errors in OpenAI's `{error:{message,type,param,code}}` shape.
 *
 * @example
 * adapter.registerRoute(createChatCompletionsRoute({ sendMessages: pool.sendMessages, runtime }));
 */
export function createChatCompletionsRoute(options: ChatCompletionsRouteOptions): RouteDefinition {
  const defaultMaxTokens = options.defaultMaxTokens ?? 4096;
  const isClaudeModel = options.isClaudeModel ?? isClaudeByName;
  return {
    method: "POST",
    path: "/v1/chat/completions",
    absolute: true,
    streaming: true,
    summary: "OpenAI-compatible chat completions",
    tags: ["Proxy"],
    middleware: [readBodyInOpenAIShape],
    handler: async (ctx) => {
      try {
        if (ctx.body === null || typeof ctx.body !== "object" || Array.isArray(ctx.body)) throw invalidRequest("The request body must be a JSON object");
        const parsed = chatRequestSchema.safeParse(ctx.body);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          const param = paramOf(issue.path);
          throw invalidRequest(param ? `Invalid value for '${param}': ${issue.message}` : issue.message, param);
        }
        const request = parsed.data;
        const meta = { id: newCompletionId(), created: Math.floor(Date.now() / 1000) };
        if (isClaudeModel(request.model)) {
          const beta = ctx.header("anthropic-beta");
          return await completeWithClaude(options.sendMessages, request, { ...meta, defaultMaxTokens, signal: ctx.abortSignal, ...(beta ? { anthropicBeta: beta } : {}) });
        }
        const runtime = options.runtime;
        if (!runtime) throw new OpenAIError(404, `The model \`${request.model}\` does not exist or you do not have access to it.`, "invalid_request_error", "model", "model_not_found");
        const context = callContextOf(ctx);
        if (!request.stream) return rawResponse(JSON.stringify(await generateWithRuntime(runtime, request, context, meta)), { headers: { "content-type": "application/json" } });
        const target = await resolveRuntimeModel(runtime, request.model);
        const includeUsage = request.stream_options?.include_usage === true;
        return rawResponse(streamWithRuntime(runtime, request, context, { ...meta, includeUsage, target }), { headers: STREAM_HEADERS });
      } catch (error) {
        return fromRuntimeError(error).toResponse();
      }
    },
  };
}
