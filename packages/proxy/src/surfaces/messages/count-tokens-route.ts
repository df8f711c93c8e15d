import { type RouteDefinition, type ServerContext, rawResponse } from "@conduit-ai/server-core";
import type { ClientAdmission } from "../../admission/client-admission.js";
import type { Relay } from "../../relay/relay.js";
import { anthropicErrorReply } from "../../wire/anthropic-messages/errors.js";
import { countMessagesTokens } from "./token-estimate.js";
import { clientKeyRefusal } from "../../admission/client-auth.js";

export interface CountTokensRouteOptions {
  /** The pool's relay to `{upstream}/v1/messages/count_tokens` (Claude models). */
  relay: Relay;
  isClientAllowed: (ctx: ServerContext) => boolean;
  headersOf: (ctx: ServerContext) => Record<string, string>;
  searchOf: (ctx: ServerContext) => string;
  isClaudeModel?: (model: string) => boolean;
  /** The proxy's admission: checked and counted like any call, nothing reserved (a count spends no tokens). */
  admission?: ClientAdmission;
}

const reply = (status: number, type: string, message: string) => {
  const answer = anthropicErrorReply(status, type as never, message);
  return rawResponse(answer.body, { status: answer.status, headers: answer.headers });
};

/**
 * `POST /v1/messages/count_tokens`: Claude models through the pool (same headers and query as
 * `/v1/messages`, `?beta=true` kept, the answer upstream's); other models get an estimate from a
 * real tokenizer, marked `x-conduit-token-count: estimate`.
 *
 * @example
 * adapter.registerRoute(createCountTokensRoute({ relay, isClientAllowed, headersOf, searchOf }));
 */
export function createCountTokensRoute(options: CountTokensRouteOptions): RouteDefinition {
  const isClaudeModel = options.isClaudeModel ?? ((model: string) => /^claude/i.test(model));
  return {
    method: "POST",
    path: "/v1/messages/count_tokens",
    absolute: true,
    rawBody: true,
    summary: "Messages API token count (Claude through the pool; other models estimated)",
    tags: ["proxy"],
    ...(options.admission ? { rateLimit: false as const } : {}),
    handler: async (ctx: ServerContext) => {
      if (options.admission) {
        // Refusals are thrown: the route group's error writer answers them in Anthropic's shape.
        options.admission.precheck(ctx);
        // Nothing reserved: a count spends no tokens (no output cap, so no price at all).
        (await options.admission.admit(ctx, { surface: "anthropic", estimatedInputTokens: 0, maxOutputTokens: 0 })).release();
      } else if (!options.isClientAllowed(ctx)) return reply(401, "authentication_error", clientKeyRefusal(ctx));
      const body = await ctx.readRawBody();
      if (!body || body.byteLength === 0) return reply(400, "invalid_request_error", "Request body is required");
      let parsed: { model?: unknown; messages?: unknown };
      try {
        parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"));
      } catch {
        return reply(400, "invalid_request_error", "The request body is not valid JSON");
      }
      if (typeof parsed?.model !== "string") return reply(400, "invalid_request_error", "model: Field required");
      if (!Array.isArray(parsed.messages)) return reply(400, "invalid_request_error", "messages: Field required");
      if (!isClaudeModel(parsed.model)) {
        const tokens = countMessagesTokens(parsed as never);
        return rawResponse(JSON.stringify({ input_tokens: tokens }), {
          headers: { "content-type": "application/json", "x-conduit-token-count": "estimate" },
        });
      }
      const search = options.searchOf(ctx);
      const answer = await options.relay(body, {
        headers: options.headersOf(ctx),
        signal: ctx.abortSignal,
        ...(search ? { search } : {}),
        ...(ctx.traceSpan ? { traceSpan: ctx.traceSpan } : {}),
      });
      return rawResponse(answer.body, { status: answer.status, headers: answer.headers });
    },
  };
}
