import {
  type RouteDefinition,
  type Runtime,
  ServerAdapterError,
  type ServerContext,
  callContextOf,
  rawResponse,
} from "@conduit-ai/server-core";
import { DEFAULT_MAX_BODY_DEPTH, jsonDepthExceeds } from "@conduit-ai/server-core/middleware";
import { createClientCheck } from "../client-auth.js";
import { STREAM_HEADERS, completeWithClaude } from "./claude-completion.js";
import { chatRequestSchema, paramOf } from "./chat-request-schema.js";
import { OpenAIError, invalidRequest } from "./openai-error.js";
import { fromRuntimeError, generateWithRuntime, newCompletionId, resolveRuntimeModel, streamWithRuntime } from "./runtime-completion.js";
import type { SendMessages } from "./send-messages.js";

export interface ChatCompletionsRouteOptions {
  /** Sends Messages API requests through the account pool; Claude models go here. */
  sendMessages: SendMessages;
  /**
   * Who may call (the proxy's `createClientCheck(clientKeys)`); refused callers get OpenAI's 401
   * before their body is read. Required so that forgetting it cannot open the surface.
   */
  isClientAllowed: (ctx: ServerContext) => boolean;
  /** Answers every other model with its providers (`local` included); without one they are 404 `model_not_found`. */
  runtime?: Runtime;
  /** `max_tokens` for Claude models when the client sets none (default 4096). */
  defaultMaxTokens?: number;
  /** Client headers passed on to `sendMessages` (e.g. the pool's sticky-session header). */
  forwardHeaders?: string[];
  /** Which models go to the Messages API (default: names starting with `claude`). */
  isClaudeModel?: (model: string) => boolean;
}

const isClaudeByName = (model: string) => /^claude/i.test(model);

const unauthorized = () =>
  new OpenAIError(
    401,
    "A proxy client key is required (Authorization: Bearer or x-api-key).",
    "invalid_request_error",
    null,
    "invalid_api_key",
  );

/**
 * The body is read here (the route takes it raw) so that every body problem is answered in
 * OpenAI's error shape rather than the server's envelope. JSON whatever its declared media type (OpenAI's API reads JSON only, and `curl -d`
 * says form): too large → 413, malformed or too deeply nested → 400, all in OpenAI's shape.
 */
async function readJsonBody(ctx: ServerContext): Promise<unknown> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await ctx.readRawBody();
  } catch (error) {
    const status = ServerAdapterError.isInstance(error) ? error.statusCode : 400;
    throw new OpenAIError(status, (error as Error).message, "invalid_request_error");
  }
  const text = bytes === undefined ? "" : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (text.trim() === "") throw invalidRequest("The request body must be a JSON object");
  if (jsonDepthExceeds(text, DEFAULT_MAX_BODY_DEPTH))
    throw invalidRequest(`The JSON body is nested deeper than ${DEFAULT_MAX_BODY_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest("We could not parse the JSON body of your request.");
  }
}

/**
 * `POST /v1/chat/completions`: OpenAI's Chat Completions for Claude models (translated to the
 * Messages API and looped through the pool) and for the runtime's providers, JSON or SSE,
 * errors in OpenAI's `{error:{message,type,param,code}}` shape.
 *
 * @example
 * adapter.registerRoute(createChatCompletionsRoute({ sendMessages: proxy.sendMessages, isClientAllowed: createClientCheck(keys), runtime }));
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
    tags: ["proxy"],
    rawBody: true,
    handler: async (ctx: ServerContext) => {
      try {
        if (!options.isClientAllowed(ctx)) throw unauthorized();
        const body = await readJsonBody(ctx);
        if (body === null || typeof body !== "object" || Array.isArray(body))
          throw invalidRequest("The request body must be a JSON object");
        const parsed = chatRequestSchema.safeParse(body);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          const param = paramOf(issue.path);
          throw invalidRequest(param ? `Invalid value for '${param}': ${issue.message}` : issue.message, param);
        }
        const request = parsed.data;
        const meta = { id: newCompletionId(), created: Math.floor(Date.now() / 1000) };
        if (isClaudeModel(request.model)) {
          const extraHeaders: Record<string, string> = {};
          for (const name of ["anthropic-beta", ...(options.forwardHeaders ?? [])]) {
            const value = ctx.header(name);
            if (value !== undefined) extraHeaders[name.toLowerCase()] = value;
          }
          return await completeWithClaude(options.sendMessages, request, {
            ...meta,
            defaultMaxTokens,
            signal: ctx.abortSignal,
            extraHeaders,
          });
        }
        const runtime = options.runtime;
        if (!runtime)
          throw new OpenAIError(
            404,
            `The model \`${request.model}\` does not exist or you do not have access to it.`,
            "invalid_request_error",
            "model",
            "model_not_found",
          );
        const context = callContextOf(ctx);
        if (!request.stream)
          return rawResponse(JSON.stringify(await generateWithRuntime(runtime, request, context, meta)), {
            headers: { "content-type": "application/json" },
          });
        const target = await resolveRuntimeModel(runtime, request.model);
        const includeUsage = request.stream_options?.include_usage === true;
        return rawResponse(streamWithRuntime(runtime, request, context, { ...meta, includeUsage, target }), { headers: STREAM_HEADERS });
      } catch (error) {
        return fromRuntimeError(error).toResponse();
      }
    },
  };
}

/**
 * The `chatCompletions` option of `createProxy`: the surface over that proxy's pool and client keys.
 *
 * @example
 * const proxy = createProxy(config, { chatCompletions: chatCompletionsFor(runtime) });
 */
export function chatCompletionsFor(runtime?: Runtime, extra: Pick<ChatCompletionsRouteOptions, "defaultMaxTokens" | "isClaudeModel"> = {}) {
  return (proxy: { sendMessages: SendMessages; config: { clientKeys: readonly string[]; sessionHeader: string } }): RouteDefinition =>
    createChatCompletionsRoute({
      ...extra,
      sendMessages: proxy.sendMessages,
      isClientAllowed: createClientCheck(proxy.config.clientKeys),
      forwardHeaders: [proxy.config.sessionHeader],
      ...(runtime ? { runtime } : {}),
    });
}
