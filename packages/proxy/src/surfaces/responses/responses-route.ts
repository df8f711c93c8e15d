import {
  type RawResponse,
  type RouteDefinition,
  type Runtime,
  type ServerContext,
  callContextOf,
  rawResponse,
} from "@conduit-ai/server-core";
import { CallAdmission } from "../../admission/call-admission.js";
import { primedStream } from "../../routing/primed-runtime.js";
import { EVENT_STREAM_HEADERS } from "../event-stream.js";
import type { ClientAdmission } from "../../admission/client-admission.js";
import { settleFromAnswer } from "../../admission/settlement.js";
import { reachable, readJsonText } from "../chat-completions/chat-completions-route.js";
import { OpenAIWireError, invalidRequest, invalidRequestFromIssues } from "../../wire/openai-chat/openai-wire-error.js";
import { fromRuntimeError, resolveRuntimeModel } from "../../targets/runtime/runtime-completion.js";
import { type Served, serveWithFallbacks } from "../../routing/fallbacks.js";
import { type ModelTable, type RouteTarget, createModelTable, isFallbackStatus } from "../../routing/model-table.js";
import type { SendMessages } from "../../targets/anthropic/send-messages.js";
import { respondWithClaude } from "../../targets/anthropic/claude-responses.js";
import { type ResponseObject, newId, responseShell } from "../../wire/openai-responses/response-object.js";
import { type ResponseStore, asInputItems } from "./response-store.js";
import { type InputItem, type ResponsesRequest, responsesRequestSchema } from "../../wire/openai-responses/responses-request-schema.js";
import { respondWithRuntime } from "../../targets/runtime/runtime-responses.js";
import { toMessages } from "../../wire/openai-responses/to-messages.js";
import { clientKeyRefusal } from "../../admission/client-auth.js";

export interface ResponsesRouteOptions {
  sendMessages: SendMessages;
  /** Who may call; refused callers get OpenAI's 401 before their body is read. */
  isClientAllowed: (ctx: ServerContext) => boolean;
  /** Answers every non-Claude model (`local` included); without one they are 404 `model_not_found`. */
  runtime?: Runtime;
  /** Keeps responses for `previous_response_id`; without one, `previous_response_id` is a 400. */
  store?: ResponseStore;
  /** `max_output_tokens` for Claude models when the client sets none (default 4096). */
  defaultMaxTokens?: number;
  /** Leave out parameters a model cannot honour instead of a 400 naming them. */
  dropParams?: boolean;
  /** Client headers passed on to `sendMessages` (e.g. the pool's sticky-session header). */
  forwardHeaders?: string[];
  isClaudeModel?: (model: string) => boolean;
  /** Time allowed for a non-streamed answer (the proxy's `timeoutMs`, 10 minutes by default). */
  timeoutMs?: number;
  /**
   * The proxy's admission (client keys or its gate, then the per-credential limit); when given it
   * replaces `isClientAllowed`, and the route leaves the server's per-address limit.
   */
  admission?: ClientAdmission;
  /** The `models` routing table: public names → targets and fallbacks (default: each name is its own target). */
  models?: ModelTable;
}

const unauthorized = (ctx: ServerContext) =>
  new OpenAIWireError(401, clientKeyRefusal(ctx), "invalid_request_error", null, "invalid_api_key");

function parse(body: unknown): ResponsesRequest {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw invalidRequest("The request body must be a JSON object");
  const parsed = responsesRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw invalidRequestFromIssues(parsed.error);
}

async function historyOf(request: ResponsesRequest, store: ResponseStore | undefined): Promise<InputItem[]> {
  const previous = request.previous_response_id;
  if (!previous) return [];
  if (!store)
    throw invalidRequest(
      "previous_response_id needs a response store, and this server keeps none",
      "previous_response_id",
      "unsupported_parameter",
    );
  const items = await store.load(previous);
  if (!items)
    throw invalidRequest(`Previous response with id '${previous}' not found.`, "previous_response_id", "previous_response_not_found");
  return items;
}

/** The streamed body of an answer still being made, as one iterable. */
async function* bodyOf(answer: Promise<RawResponse>): AsyncGenerator<Uint8Array | string> {
  const { body } = await answer;
  if (body === null) return;
  if (typeof body === "string" || body instanceof Uint8Array) yield body;
  else yield* body;
}

/**
 * `POST /v1/responses`: OpenAI's Responses API for Claude models (translated to the Messages
 * API and looped through the pool) and for the runtime's providers, JSON or SSE, errors in
 * OpenAI's shape. `previous_response_id` continues a stored response.
 *
 * @example
 * adapter.registerRoute(createResponsesRoute({ sendMessages: proxy.sendMessages, isClientAllowed, runtime, store: new MemoryResponseStore() }));
 */
export function createResponsesRoute(options: ResponsesRouteOptions): RouteDefinition {
  const isClaudeModel = options.isClaudeModel ?? ((model: string) => /^claude/i.test(model));
  const dropParams = options.dropParams ?? false;
  const models = options.models ?? createModelTable({}, isClaudeModel);
  return {
    method: "POST",
    path: "/v1/responses",
    absolute: true,
    streaming: true,
    rawBody: true,
    timeoutMs: options.timeoutMs ?? 10 * 60 * 1000,
    ...(options.admission ? { rateLimit: false as const } : {}),
    summary: "OpenAI-compatible Responses API",
    tags: ["proxy"],
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
        const request = parse(body);
        const admitted = await call.admit("openai", body as Record<string, unknown>, request.model, {
          text,
          ...reachable(models, request.model),
        });
        const estimate = call.request;
        const settled = admitted;
        const history = await historyOf(request, options.store);
        const keep = request.store !== false && options.store !== undefined;
        const shell = responseShell(request, { id: newId("resp"), createdAt: Math.floor(Date.now() / 1000), store: keep });
        const input: InputItem[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : (request.input ?? []);
        const onComplete = async (response: ResponseObject) => {
          if (keep) await options.store!.save(response.id, [...history, ...input, ...asInputItems(response.output)]);
        };
        const extraHeaders: Record<string, string> = {};
        for (const name of ["anthropic-beta", ...(options.forwardHeaders ?? [])]) {
          const value = ctx.header(name);
          if (value !== undefined) extraHeaders[name.toLowerCase()] = value;
        }
        const targets = models.targetsFor(request.model);
        const serve = async (target: RouteTarget): Promise<Served> => {
          const attempt = { ...request, model: target.model };
          const hasFallback = target !== targets.at(-1);
          if (target.kind === "anthropic") {
            const translation = toMessages(attempt, history, { defaultMaxTokens: options.defaultMaxTokens ?? 4096, dropParams });
            const settle =
              settled && estimate && call.gated
                ? settleFromAnswer(settled, estimate, { vendor: "anthropic", model: target.model })
                : undefined;
            const response = await respondWithClaude(options.sendMessages, translation, {
              shell,
              signal: ctx.abortSignal,
              ...(ctx.traceSpan ? { traceSpan: ctx.traceSpan } : {}),
              extraHeaders,
              onComplete,
              ...(settle
                ? {
                    // An answer the next target replaces is not the call's usage.
                    onAnswered: (status: number, outcome: Parameters<typeof settle>[1]) =>
                      !(hasFallback && isFallbackStatus(status)) && settle(status, outcome),
                  }
                : {}),
            });
            return { response, servedBy: target.name };
          }
          if (!options.runtime)
            throw new OpenAIWireError(
              404,
              `The model \`${attempt.model}\` does not exist or you do not have access to it.`,
              "invalid_request_error",
              "model",
              "model_not_found",
            );
          const resolved = await resolveRuntimeModel(options.runtime, attempt.model);
          const servedBy = `${resolved.provider}/${resolved.model}`;
          const started = performance.now();
          const runtime = options.runtime;
          const respond = (answering: Runtime) =>
            respondWithRuntime(answering, attempt, {
              shell,
              history,
              context: callContextOf(ctx),
              dropParams,
              onComplete: async (answer) => {
                settled?.settle({
                  model: resolved.model,
                  target: `runtime/${servedBy}`,
                  inputTokens: answer.usage?.input_tokens ?? 0,
                  outputTokens: answer.usage?.output_tokens ?? 0,
                  status: 200,
                  latencyMs: Math.round(performance.now() - started),
                });
                await onComplete(answer);
              },
            });
          if (!(request.stream && hasFallback)) return { response: await respond(runtime), servedBy };
          // With a later target, held back until the provider answered or failed: a 429/5xx then falls back before any byte.
          const body = await primedStream(runtime, (answering) => bodyOf(respond(answering)));
          return { response: rawResponse(body, { headers: EVENT_STREAM_HEADERS }), servedBy };
        };
        return await serveWithFallbacks(targets, ctx.abortSignal, serve);
      } catch (error) {
        // Nothing settled: gone before an answer (the reservation stands) or failed before upstream.
        return call.failed(error, (failure) => fromRuntimeError(failure).toResponse());
      }
    },
  };
}
