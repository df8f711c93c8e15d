import { type RouteDefinition, type Runtime, ServerAdapterError, type ServerContext, callContextOf } from "@conduit-ai/server-core";
import { DEFAULT_MAX_BODY_DEPTH, jsonDepthExceeds } from "@conduit-ai/server-core/middleware";
import { CallAdmission } from "../../admission/call-admission.js";
import type { ClientAdmission } from "../../admission/client-admission.js";
import { serveWithFallbacks } from "../../routing/fallbacks.js";
import { type ModelTable, createModelTable, modelsReachedBy } from "../../routing/model-table.js";
import { chatRequestSchema } from "../../wire/openai-chat/chat-request-schema.js";
import { serveChatTarget } from "./chat-targets.js";
import { OpenAIWireError, invalidRequest, invalidRequestFromIssues } from "../../wire/openai-chat/openai-wire-error.js";
import { fromRuntimeError, newCompletionId } from "../../targets/runtime/runtime-completion.js";
import type { SendMessages } from "../../targets/anthropic/send-messages.js";
import { clientKeyRefusal } from "../../admission/client-auth.js";

export interface ChatCompletionsRouteOptions {
  /** Sends Messages API requests through the account pool; Claude models go here. */
  sendMessages: SendMessages;
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
  /** Client headers passed on to `sendMessages` (e.g. the pool's sticky-session header). */
  forwardHeaders?: string[];
  /** Which models go to the Messages API (default: names starting with `claude`). */
  isClaudeModel?: (model: string) => boolean;
  /** Leave out parameters a model cannot honour instead of a 400 naming them (default false). */
  dropParams?: boolean;
  /** The `models` routing table: public names → targets and fallbacks (default: each name is its own target). */
  models?: ModelTable;
}

const isClaudeByName = (model: string) => /^claude/i.test(model);

/** What an alias of the table may reach, for the gate's reservation (nothing for a plain model name). */
export function reachable(models: ModelTable, model: string): { models?: string[] } {
  const reached = modelsReachedBy(models.configured(model));
  return reached ? { models: reached } : {};
}

const unauthorized = (ctx: ServerContext) =>
  new OpenAIWireError(401, clientKeyRefusal(ctx), "invalid_request_error", null, "invalid_api_key");

/**
 * The body is read here (the route takes it raw) so that every body problem is answered in
 * OpenAI's error shape rather than the server's envelope. JSON whatever its declared media type (OpenAI's API reads JSON only, and `curl -d`
 * says form): too large → 413, malformed or too deeply nested → 400, all in OpenAI's shape.
 */
export async function readJsonBody(ctx: ServerContext): Promise<unknown> {
  return (await readJsonText(ctx)).body;
}

/** `readJsonBody`, with the text it parsed (a gate estimates from its size and checks its top-level keys). */
export async function readJsonText(ctx: ServerContext): Promise<{ text: string; body: unknown }> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await ctx.readRawBody();
  } catch (error) {
    const status = ServerAdapterError.isInstance(error) ? error.statusCode : 400;
    throw new OpenAIWireError(status, (error as Error).message, "invalid_request_error");
  }
  const text = bytes === undefined ? "" : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (text.trim() === "") throw invalidRequest("The request body must be a JSON object");
  if (jsonDepthExceeds(text, DEFAULT_MAX_BODY_DEPTH))
    throw invalidRequest(`The JSON body is nested deeper than ${DEFAULT_MAX_BODY_DEPTH} levels`);
  try {
    return { text, body: JSON.parse(text) };
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
  const dropParams = options.dropParams ?? false;
  const models = options.models ?? createModelTable({}, isClaudeModel);
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
        const estimate = call.request;
        const extraHeaders: Record<string, string> = {};
        for (const name of ["anthropic-beta", ...(options.forwardHeaders ?? [])]) {
          const value = ctx.header(name);
          if (value !== undefined) extraHeaders[name.toLowerCase()] = value;
        }
        const targets = models.targetsFor(request.model);
        const attempt = {
          request,
          sendMessages: options.sendMessages,
          runtime: options.runtime,
          context: () => callContextOf(ctx),
          signal: ctx.abortSignal,
          traceSpan: ctx.traceSpan,
          meta: { id: newCompletionId(), created: Math.floor(Date.now() / 1000) },
          defaultMaxTokens,
          dropParams,
          extraHeaders,
          admitted,
          estimate,
          gated: call.gated,
        };
        return await serveWithFallbacks(targets, ctx.abortSignal, (target) =>
          serveChatTarget(target, { ...attempt, hasFallback: target !== targets.at(-1) }),
        );
      } catch (error) {
        // Nothing settled: gone before an answer (the reservation stands) or failed before upstream.
        return call.failed(error, (failure) => fromRuntimeError(failure).toResponse());
      }
    },
  };
}
