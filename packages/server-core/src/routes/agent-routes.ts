import { defineRoute, type RouteGroup } from "../contracts/route.js";
import type { GenerateRequest, Runtime } from "../contracts/runtime.js";
import { embedManyResponseSchema, embedResponseSchema, generateResponseSchema, providersResponseSchema } from "./response-schemas.js";
import { callContextOf, requireRuntime } from "./route-support.js";
import { PREFERRED_STREAM_FORMAT_STATE, fromUiChatRequest, isUiChatRequest } from "../core/streams/ui-message-stream.js";
import { requestRuntime } from "../core/pipeline/request-runtime.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import { embedManyRequestSchema, embedRequestSchema, generateRequestSchema } from "./schemas.js";
import { ENVELOPE_METADATA_STATE } from "../core/errors/envelope.js";

/** Response header of `/agent/execute` and `/agent/generate` when the conversation store was down (`unavailable`). */
export const MEMORY_HEADER = "x-conduit-memory";

/**
 * Accepts a `useChat` request body on `/agent/stream` (after auth: route middleware runs last),
 * and answers it in the UI message stream unless the client names a format: `useChat` reads
 * nothing else, and SSE of DataStreamEvents would reach it as a wall of validation errors.
 */
const uiChatRequestMiddleware: MiddlewareDefinition = {
  name: "ui-chat-request",
  handler: async (ctx, next) => {
    const body = await ctx.readBody();
    if (isUiChatRequest(body)) ctx.state[PREFERRED_STREAM_FORMAT_STATE] = "ui-message";
    ctx.body = fromUiChatRequest(body);
    await next();
  },
};

/**
 * The agent group: generation (`/execute`, `/generate`), streaming (`/stream`, SSE or
 * NDJSON encoded by the core), providers and embeddings.
 *
 * @example
 * adapter.registerRouteGroup(createAgentRoutes(runtime));
 * // POST /api/agent/execute {"input":{"text":"Hello"}} → {data:{content, provider, model, usage, ...}}
 */
export function createAgentRoutes(runtime: Runtime | undefined): RouteGroup {
  const generateRoute = (path: string, summary: string) =>
    defineRoute({
      method: "POST",
      path,
      summary,
      description: "Accepts `input: {text}` or the legacy `prompt`. With a `sessionId` the conversation history is used and extended.",
      schema: { body: generateRequestSchema(), response: generateResponseSchema() },
      handler: async (ctx) => {
        const { memory, ...result } = await requestRuntime(ctx, requireRuntime(runtime)).generate(
          ctx.body as GenerateRequest,
          callContextOf(ctx),
        );
        if (memory === "unavailable") {
          // Said in the answer, not only in the log: the client learns this turn has no history and was not kept.
          ctx.setHeader(MEMORY_HEADER, memory);
          ctx.state[ENVELOPE_METADATA_STATE] = { memory };
        }
        return result;
      },
    });
  return {
    prefix: "/agent",
    tags: ["agent"],
    routes: [
      generateRoute("/execute", "Generate a complete answer"),
      generateRoute("/generate", "Generate a complete answer (alias of /agent/execute)"),
      defineRoute({
        method: "POST",
        path: "/stream",
        summary: "Stream an answer as DataStreamEvents",
        description:
          "Server-Sent Events by default; NDJSON with `Accept: application/x-ndjson` or `?format=ndjson`. The last event is `finish` or `error`. " +
          "With `?format=ui-message` (or the header `x-conduit-stream-format: ui-message`) the Vercel AI SDK UI message stream protocol v1, so `useChat` reads it directly; " +
          "the body may also be the `useChat` request (`{id, messages}`): the last user message is the input, the chat id the session, " +
          "and the answer is the UI message stream unless `?format=` or `x-conduit-stream-format` names another format.",
        streaming: true,
        middleware: [uiChatRequestMiddleware],
        schema: { body: generateRequestSchema() },
        // The core encodes the iterable and aborts it through ctx.abortSignal when the client leaves.
        handler: async (ctx) => {
          const target = requestRuntime(ctx, requireRuntime(runtime));
          let context = callContextOf(ctx);
          // A per-call token is checked before the stream opens: refused, it is a 401 envelope, as on /agent/execute.
          if (context.authToken !== undefined && target.authorizeCall) context = await target.authorizeCall(context);
          // So is a gatekeeper's refusal (a budget spent, a rate limit): a status before the first byte.
          const request = ctx.body as GenerateRequest;
          return target.openStream ? target.openStream(request, context) : target.stream(request, context);
        },
      }),
      defineRoute({
        method: "GET",
        path: "/providers",
        summary: "List providers and their models",
        schema: { response: providersResponseSchema() },
        handler: async () => {
          const providers = await requireRuntime(runtime).listProviders();
          return { providers, total: providers.length };
        },
      }),
      defineRoute({
        method: "POST",
        path: "/embed",
        summary: "Embed one text",
        schema: { body: embedRequestSchema(), response: embedResponseSchema() },
        handler: (ctx) => requestRuntime(ctx, requireRuntime(runtime)).embed(ctx.body, callContextOf(ctx)),
      }),
      defineRoute({
        method: "POST",
        path: "/embed-many",
        summary: "Embed a batch of texts (at most 100)",
        schema: { body: embedManyRequestSchema(), response: embedManyResponseSchema() },
        handler: (ctx) => requestRuntime(ctx, requireRuntime(runtime)).embedMany(ctx.body, callContextOf(ctx)),
      }),
    ],
  };
}
