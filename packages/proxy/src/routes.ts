import {
  AuthenticationError,
  ConfigurationError,
  type RouteDefinition,
  type RouteGroup,
  type Runtime,
  type ServerContext,
  callContextOf,
  ServerValidationError,
  isStoreUnavailable,
  rawResponse,
} from "@conduit-ai/server-core";
import { anthropicErrorShape } from "./anthropic/error-shape.js";
import type { RelayMessages } from "./anthropic/messages-sender.js";
import { parseRateLimitHeaders } from "./anthropic/rate-limit-headers.js";
import { credentialHeaders } from "./anthropic/wire.js";
import { openaiErrorShape } from "./openai/error-shape.js";
import type { ProxyConfig } from "./config.js";
import type { AdmissionRequest, Admitted, ClientAdmission } from "./admission/client-admission.js";
import type { RuntimeUsage } from "./anthropic/runtime-messages.js";
import { admissionRequestOf } from "./admission/request-estimate.js";
import { reservationUsage, settleFromAnswer } from "./admission/settlement.js";
import type { AccountPool } from "./pool/account-pool.js";
import type { ProxyReply } from "./relay/proxy-reply.js";
import type { Relay } from "./relay/relay.js";
import { createCountTokensRoute } from "./anthropic/count-tokens-route.js";
import { topLevelModelOf } from "./anthropic/body-model.js";
import { serveMessagesTarget } from "./anthropic/messages-targets.js";
import { serveWithFallbacks } from "./routing/fallbacks.js";
import { type ModelTable, modelsReachedBy } from "./routing/model-table.js";
import { createBaseUrlProbeRoutes } from "./relay/client-probes.js";
import { clientKeyRefusal } from "./admission/client-auth.js";

export interface ProxyRouteDeps {
  pool: AccountPool;
  config: ProxyConfig;
  relayMessages: RelayMessages;
  /** The pool's relay to `/v1/messages/count_tokens`. */
  relayCountTokens?: Relay;
  isClientAllowed: (ctx: ServerContext) => boolean;
  /** The `models` routing table (public names → targets and fallbacks). */
  models: ModelTable;
  /** Answers runtime targets of the routing table (`local`, `<provider>/<model>`); without one they are 404. */
  runtime?: Runtime;
  /** The AI surfaces' admission (client keys or the gate, and the per-credential limit). */
  admission: ClientAdmission;
  onWarning?: (message: string) => void;
  fetch?: typeof fetch;
}

/** Thrown, so the one error step shapes it: Anthropic's shape on `/v1/messages`, the envelope on `/accounts` and `/limits`. */
function unauthorized(ctx: ServerContext): AuthenticationError {
  return new AuthenticationError(clientKeyRefusal(ctx));
}

function asRouteResult(reply: ProxyReply) {
  return rawResponse(reply.body, { status: reply.status, headers: reply.headers });
}

/** Request headers as one string each, for the upstream request. */
function headersOf(ctx: ServerContext): Record<string, string> {
  const headers: Record<string, string> = {};
  const incoming = ctx.headers;
  for (const name in incoming) {
    const value = incoming[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** `POST /v1/messages`: the body goes upstream unparsed, the answer comes back unchanged. */
export function createMessagesRoute(deps: ProxyRouteDeps): RouteDefinition {
  return {
    method: "POST",
    path: "/v1/messages",
    absolute: true,
    rawBody: true,
    streaming: true,
    timeoutMs: deps.config.timeoutMs,
    // Limited per client credential by the admission, not per address by the server.
    rateLimit: false,
    summary: "Messages API passthrough over the account pool",
    tags: ["proxy"],
    handler: async (ctx: ServerContext) => {
      const admission = deps.admission;
      admission.precheck(ctx);
      const body = await ctx.readRawBody();
      if (!body || body.byteLength === 0)
        throw new ServerValidationError("Request body is required", [{ field: "body", message: "a Messages API request" }]);
      // The body is parsed only for a gate (model, tokens, repeated keys, caps); without one it goes upstream unread.
      const estimate = admission.gated ? admissionRequestOf("anthropic", body) : { surface: "anthropic" as const, estimatedInputTokens: 0 };
      // Routed by the body's model (read without parsing the rest); a body naming none goes upstream as is.
      const model = estimate.model ?? topLevelModelOf(body);
      // A name the table does not route is the pool's, whatever it looks like (a passthrough).
      const configured = model === undefined ? undefined : deps.models.configured(model);
      const reached = modelsReachedBy(configured);
      // An alias is reserved at the dearest model it may reach; the allow-list still checks its name.
      const request: AdmissionRequest = reached ? { ...estimate, models: reached } : estimate;
      const admitted = await admission.admit(ctx, request);
      const target = { vendor: "anthropic", model: request.model };
      const search = searchOf(ctx);
      const relayRequest = {
        headers: headersOf(ctx),
        signal: ctx.abortSignal,
        ...(search ? { search } : {}),
        ...(ctx.traceSpan ? { traceSpan: ctx.traceSpan } : {}),
        ...(admission.gated ? { onAnswered: settleFromAnswer(admitted, request, target) } : {}),
      };
      try {
        if (model === undefined) return asRouteResult(await deps.relayMessages(body, relayRequest));
        const targets = configured ?? [{ kind: "anthropic" as const, model, name: `anthropic/${model}` }];
        const attempt = {
          body,
          model,
          relayMessages: deps.relayMessages,
          runtime: deps.runtime,
          context: () => callContextOf(ctx),
          request: relayRequest,
          onRuntimeUsage: settleRuntimeAnswer(admitted, request),
        };
        return await serveWithFallbacks(targets, ctx.abortSignal, (next) =>
          serveMessagesTarget(next, { ...attempt, hasFallback: next !== targets.at(-1) }),
        );
      } catch (error) {
        // Gone before any answer: the call may have reached upstream, so the reservation stands.
        if (ctx.abortSignal.aborted) admitted.settle(reservationUsage(request, target, 499, 0));
        else admitted.release();
        // A store outage (Redis) leaves as 503 STORE_UNAVAILABLE, in Anthropic's shape on this path.
        if (isStoreUnavailable(error)) deps.onWarning?.("proxy: the pool's store is unavailable");
        throw error;
      }
    },
  };
}

/**
 * Settles a runtime-served Messages call: the tokens its provider reported, priced by the served
 * model; none reported (cut, failed) → the reservation stands.
 */
function settleRuntimeAnswer(admitted: Admitted, request: AdmissionRequest) {
  const started = performance.now();
  return (servedBy: string, usage: RuntimeUsage | undefined) => {
    const latencyMs = Math.round(performance.now() - started);
    if (!usage) return admitted.settle(reservationUsage(request, { vendor: "runtime", model: servedBy }, 200, latencyMs));
    const model = servedBy.slice(servedBy.indexOf("/") + 1);
    admitted.settle({
      model,
      target: `runtime/${servedBy}`,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      status: 200,
      latencyMs,
    });
  };
}

/** The client's query string, rebuilt from the parsed query (`?beta=true`). */
function searchOf(ctx: ServerContext): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(ctx.query)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

/** `GET /accounts`: one row per account, no secret. */
export function createAccountsRoute(deps: ProxyRouteDeps): RouteDefinition {
  return {
    method: "GET",
    path: "/accounts",
    absolute: true,
    summary: "Proxy accounts: status, cooldown, quota, token totals and cost",
    tags: ["proxy"],
    handler: async (ctx: ServerContext) => {
      if (!deps.isClientAllowed(ctx)) throw unauthorized(ctx);
      return { accounts: await deps.pool.rows() };
    },
  };
}

/**
 * `GET /limits`: quota per account. Live by default (a one-token request per usable account
 * reads fresh rate-limit headers); `?snapshot=true` answers from the stored state only.
 */
export function createLimitsRoute(deps: ProxyRouteDeps): RouteDefinition {
  return {
    method: "GET",
    path: "/limits",
    absolute: true,
    summary: "Per-account quota (live, or stored with ?snapshot=true)",
    tags: ["proxy"],
    handler: async (ctx: ServerContext) => {
      if (!deps.isClientAllowed(ctx)) throw unauthorized(ctx);
      const snapshot = ctx.query.snapshot === "true" || ctx.query.snapshot === "1";
      if (!snapshot) await probeAccounts(deps, ctx.abortSignal);
      const rows = await deps.pool.rows();
      return {
        snapshot,
        accounts: rows.map((row) => ({
          id: row.id,
          vendor: row.vendor,
          status: row.status,
          cooldownUntil: row.cooldownUntil,
          quota: row.quota,
        })),
      };
    },
  };
}

/** Reads fresh quota headers for each usable Anthropic account; failures leave the stored quota. */
async function probeAccounts(deps: ProxyRouteDeps, signal: AbortSignal): Promise<void> {
  const fetchImpl = deps.fetch ?? fetch;
  const rows = await deps.pool.rows();
  const endpoint = `${deps.config.upstream.anthropic.replace(/\/+$/, "")}/v1/messages`;
  const probe = JSON.stringify({ model: deps.config.probeModel, max_tokens: 1, messages: [{ role: "user", content: "." }] });
  await Promise.all(
    deps.pool
      .list("anthropic")
      .filter((account) => rows.find((row) => row.id === account.id)?.status !== "disabled")
      .map(async (account) => {
        try {
          const credential = credentialHeaders(
            account,
            account.type === "api-key" ? account.apiKey : await deps.pool.oauth.accessToken(account),
          );
          const response = await fetchImpl(endpoint, {
            method: "POST",
            headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...credential },
            body: probe,
            signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
          });
          await response.body?.cancel();
          const quota = parseRateLimitHeaders(Object.fromEntries(response.headers), Date.now());
          if (quota) await deps.pool.saveQuota(account.id, quota);
        } catch {
          // Live data is best effort: the stored quota stays.
        }
      }),
  );
}

/** The proxy's route groups for the surfaces asked for. */
export function createProxyRouteGroups(
  deps: ProxyRouteDeps,
  surfaces: { messages: boolean; chatCompletions: boolean },
  chatCompletions?: RouteDefinition | RouteDefinition[],
): RouteGroup[] {
  const routes: RouteDefinition[] = [];
  if (surfaces.messages) routes.push(createMessagesRoute(deps), createLimitsRoute(deps), createAccountsRoute(deps));
  // `HEAD /` (Claude Code's connectivity check) and `HEAD /v1` answer 204 at once.
  if (surfaces.messages || surfaces.chatCompletions) routes.push(...createBaseUrlProbeRoutes());
  if (surfaces.messages && deps.relayCountTokens)
    routes.push(
      createCountTokensRoute({
        relay: deps.relayCountTokens,
        isClientAllowed: deps.isClientAllowed,
        admission: deps.admission,
        headersOf,
        searchOf,
      }),
    );
  // A surface asked for is mounted or refused at setup, never silently left out.
  if (surfaces.chatCompletions) {
    if (!chatCompletions)
      throw new ConfigurationError(
        "POST /v1/chat/completions needs the chatCompletions routes (createProxy's chatCompletions option, e.g. chatCompletionsFor(runtime))",
      );
    routes.push(...[chatCompletions].flat());
  }
  // Conduit's own errors on these paths (unknown /v1 routes, auth, limits, timeouts) speak the vendors' shapes.
  return routes.length > 0 ? [{ prefix: "", routes, tags: ["proxy"], errorShapes: [anthropicErrorShape, openaiErrorShape] }] : [];
}
