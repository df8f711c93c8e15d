import { type RouteDefinition, type RouteGroup, type ServerContext, ServerValidationError, rawResponse } from "@conduit-ai/server-core";
import type { ClientAdmission } from "../../admission/client-admission.js";
import { admissionRequestOf } from "../../admission/request-estimate.js";
import { reservationOutcome, settleFromAnswer } from "../../admission/settlement.js";
import { UPGRADE_REFUSAL_BODY, createUpgradeRefusalRoute } from "../probes/client-probes.js";
import type { Relay } from "../../relay/relay.js";
import type { SendCodex } from "../../targets/codex/codex-relay.js";
import { codexErrorShape } from "../../wire/codex/error-shape.js";
import { codexError } from "../../wire/codex/usage-limit.js";
import { clientKeyRefusal } from "../../admission/client-auth.js";
import { guardRawBody } from "../guardrails/guard-request.js";
import { guardedCodexBytes } from "../guardrails/codex-answer-frames.js";
import { chunksOf } from "../../targets/anthropic/reply-body.js";

export type CodexRouteOptions =
  | {
      sendCodex: SendCodex;
      /** Who may call (the proxy's `createClientCheck(clientKeys)`); others get 401 before their body is read. */
      isClientAllowed: (ctx: ServerContext) => boolean;
    }
  | {
      relayCodex: Relay;
      /** The proxy's admission: client keys or its gate, and the per-credential limit. */
      admission: ClientAdmission;
      /** Time until the answer starts (default the server's). */
      timeoutMs?: number;
    };

function headersOf(ctx: ServerContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/**
 * `POST /backend-api/codex/responses`: the codex engine over the pool's codex accounts, body and
 * answer byte for byte unless a guardrail applies to the call (then a masked body goes upstream
 * and the answer's text deltas are guarded as they stream). Mounted by `conduit proxy` only,
 * never by `createAllRoutes`.
 *
 * @example
 * adapter.registerRouteGroup(proxy.createCodexRoutes());
 */
export function createCodexRoute(options: CodexRouteOptions): RouteDefinition {
  const route: Omit<RouteDefinition, "handler"> = {
    method: "POST",
    path: "/backend-api/codex/responses",
    absolute: true,
    rawBody: true,
    streaming: true,
    summary: "Codex Responses passthrough over the pool's codex accounts",
    tags: ["proxy"],
  };
  if ("sendCodex" in options) {
    return {
      ...route,
      handler: async (ctx: ServerContext) => {
        if (!options.isClientAllowed(ctx)) return codexError(401, "invalid_api_key", clientKeyRefusal(ctx));
        const body = await ctx.readRawBody();
        if (!body || body.byteLength === 0) return codexError(400, "invalid_request_error", "Request body is required");
        return options.sendCodex(body, { headers: headersOf(ctx), signal: ctx.abortSignal });
      },
    };
  }
  return {
    ...route,
    // The proxy limits its callers per credential, not per address.
    rateLimit: false,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    handler: async (ctx: ServerContext) => {
      options.admission.precheck(ctx);
      const body = await ctx.readRawBody();
      if (!body || body.byteLength === 0)
        throw new ServerValidationError("Request body is required", [{ field: "body", message: "a Responses API request" }]);
      const request = admissionRequestOf("codex", body);
      const admitted = await options.admission.admit(ctx, request);
      const target = { vendor: "codex", model: request.model };
      try {
        // The request's guardrails (a block is a 400 in codex's shape, a mask rewrites the body).
        const sent = await guardRawBody(admitted.guard, body, { surface: "codex", model: request.model });
        const reply = await options.relayCodex(sent, {
          headers: headersOf(ctx),
          signal: ctx.abortSignal,
          onAnswered: settleFromAnswer(admitted, target),
          ...(ctx.traceSpan ? { traceSpan: ctx.traceSpan } : {}),
        });
        const guard = admitted.guard;
        const streamed = [reply.headers["content-type"] ?? ""].flat().some((type) => type.includes("text/event-stream"));
        // The answer's guardrails on its text deltas; without one the bytes pass as the backend sent them.
        if (guard?.set.checks("response") && streamed && reply.status >= 200 && reply.status < 300 && reply.body) {
          const { "content-length": _length, "content-encoding": _encoding, ...headers } = reply.headers;
          return rawResponse(guardedCodexBytes(chunksOf(reply.body), guard), { status: reply.status, headers });
        }
        return rawResponse(reply.body, { status: reply.status, headers: reply.headers });
      } catch (error) {
        // Gone before any answer: the call may have reached upstream, so the reservation stands.
        if (ctx.abortSignal.aborted) admitted.settleAtReservation(reservationOutcome(target, 499, 0));
        else admitted.release();
        throw error;
      }
    },
  };
}

/**
 * The codex route as a group, with the codex error shape for Conduit's own errors on its paths
 * (auth, limits, timeouts, body limits, unknown codex routes).
 *
 * @example
 * server.registerRouteGroup(createCodexRouteGroup({ sendCodex, isClientAllowed }));
 */
export function createCodexRouteGroup(options: CodexRouteOptions): RouteGroup {
  // Codex's built-in provider tries a WebSocket on the same path first: a 426 sends it to HTTP at once.
  const refusal = createUpgradeRefusalRoute("/backend-api/codex/responses", UPGRADE_REFUSAL_BODY);
  return { prefix: "", routes: [createCodexRoute(options), refusal], tags: ["proxy"], errorShapes: [codexErrorShape] };
}
