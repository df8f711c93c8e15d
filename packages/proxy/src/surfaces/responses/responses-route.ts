import { type PriceTable, type RouteDefinition, type Runtime, type ServerContext, mergePrices } from "@conduit-ai/server-core";
import { CallAdmission } from "../../admission/call-admission.js";
import type { ClientAdmission } from "../../admission/client-admission.js";
import { clientKeyRefusal } from "../../admission/client-auth.js";
import { type ModelTable, createModelTable, reachable } from "../../routing/model-table.js";
import type { ResponseCache } from "../../cache/response-cache.js";
import { createTargets } from "../../routing/targets.js";
import type { RelayMessages } from "../../targets/anthropic/messages-relay.js";
import { type SendMessages, relayMessagesOf } from "../../targets/anthropic/send-messages.js";
import { OpenAIWireError, invalidRequest, invalidRequestFromIssues } from "../../wire/openai-chat/openai-wire-error.js";
import { ClientToolNames } from "../../wire/openai-responses/client-tool-names.js";
import { type ResponseObject, newId, responseShell } from "../../wire/openai-responses/response-object.js";
import { type InputItem, type ResponsesRequest, responsesRequestSchema } from "../../wire/openai-responses/responses-request-schema.js";
import { guardRequest } from "../guardrails/guard-request.js";
import { openaiFailureOf } from "../openai-failure.js";
import { passedOnHeaders, readJsonText } from "../openai-request.js";
import { serveTranslated } from "../translated-call.js";
import { responsesAnswerSavings } from "./responses-cache.js";
import { type ResponseStore, asInputItems } from "./response-store.js";
import { responsesResponseOf } from "./responses-encoder.js";

/** The pool never answered: this surface has always said so as one 502 (`upstream_unavailable`), whatever the cause. */
const unreachable = () =>
  new OpenAIWireError(502, "The upstream Messages API could not be reached", "server_error", null, "upstream_unavailable");

export interface ResponsesRouteOptions {
  sendMessages: SendMessages;
  /** The pool's relay itself (a proxy's `relayMessages`): used instead of `sendMessages`, without its WHATWG `Response`. */
  relayMessages?: RelayMessages;
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
  /** Client headers passed on to the pool (e.g. its sticky-session header). */
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
  /** The proxy's exact response cache (see the README's "Response cache"). */
  cache?: ResponseCache;
  /** What a cache hit saves is counted at these prices (default: the defaults). */
  prices?: PriceTable;
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

/**
 * `POST /v1/responses`: OpenAI's Responses API for Claude models (translated to the Messages
 * API and looped through the pool) and for the runtime's providers, JSON or SSE, errors in
 * OpenAI's shape. `previous_response_id` continues a stored response.
 *
 * @example
 * adapter.registerRoute(createResponsesRoute({ sendMessages: proxy.sendMessages, isClientAllowed, runtime, store: new MemoryResponseStore() }));
 */
export function createResponsesRoute(options: ResponsesRouteOptions): RouteDefinition {
  const translation = { defaultMaxTokens: options.defaultMaxTokens ?? 4096, dropParams: options.dropParams ?? false };
  const models = options.models ?? createModelTable({}, options.isClaudeModel ?? ((model: string) => /^claude/i.test(model)));
  const prices = options.prices ?? mergePrices();
  const targets = createTargets({
    relayMessages: options.relayMessages ?? relayMessagesOf(options.sendMessages),
    runtime: options.runtime,
  });
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
        // The stored history was checked when it was sent; this request's input and instructions are checked now.
        await guardRequest(admitted?.guard, request, { surface: "openai-responses", model: request.model });
        const history = await historyOf(request, options.store);
        const keep = request.store !== false && options.store !== undefined;
        const shell = responseShell(request, { id: newId("resp"), createdAt: Math.floor(Date.now() / 1000), store: keep });
        const input: InputItem[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : (request.input ?? []);
        const onComplete = async (response: ResponseObject) => {
          if (keep) await options.store!.save(response.id, [...history, ...input, ...asInputItems(response.output)]);
        };
        const answering = { shell, toolNames: ClientToolNames.of(request.tools), onComplete };
        const headers = passedOnHeaders(ctx, options.forwardHeaders);
        return await serveTranslated(
          ctx,
          { models, targets },
          {
            surfaceRequest: { wire: "openai-responses", request, history, translation },
            model: request.model,
            text,
            admission: call,
            admitted,
            headers,
            cache: { store: options.cache, body: body as Record<string, unknown>, savings: responsesAnswerSavings(prices, request.model) },
          },
          (answer) => responsesResponseOf(answer, answering),
        );
      } catch (error) {
        // Nothing settled: gone before an answer (the reservation stands) or failed before upstream.
        return call.failed(error, (failure) => openaiFailureOf(failure, unreachable).toResponse());
      }
    },
  };
}
