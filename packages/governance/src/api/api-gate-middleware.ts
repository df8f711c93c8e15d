import {
  type AuthenticatedUser,
  type Gate,
  type GateIdentity,
  MAX_OUTPUT_TOKENS_LIMIT,
  type MiddlewareDefinition,
  type Runtime,
  type ServerContext,
  ServerValidationError,
  outputLimitOf,
} from "@conduit-ai/server-core";
import { annotateRequestFeed, estimateTokens, guardrailHitsOf, observeRuntimeCall } from "@conduit-ai/server-core/internal";
import { credentialOf } from "../key-secret.js";
import { apiRefusalError } from "./api-refusal.js";
import { gateTokensOf } from "./runtime-usage.js";

/** The user a virtual key's calls run as: its id and name, role `virtual-key`, its team and user in `metadata`. */
export function virtualKeyUser(identity: GateIdentity): AuthenticatedUser {
  return {
    id: identity.keyId,
    name: identity.name,
    roles: ["virtual-key"],
    permissions: [],
    metadata: {
      ...(identity.team ? { team: identity.team } : {}),
      ...(identity.user ? { user: identity.user } : {}),
      // The team's then the key's guardrail names: the guardrails of /api run them.
      ...(identity.guardrails ? { guardrails: identity.guardrails } : {}),
    },
  };
}

/** The `/api` routes that start AI work (relative to `basePath`). */
export const GATED_API_PATHS = ["/agent/execute", "/agent/generate", "/agent/stream", "/agent/embed", "/agent/embed-many"];

interface WorkRequest {
  input?: { text?: unknown };
  prompt?: unknown;
  system?: unknown;
  text?: unknown;
  texts?: unknown;
  model?: unknown;
  maxTokens?: unknown;
}

/** A rough input estimate (server-core's `estimateTokens`) from the parts of a request that reach the model. */
export function estimateInputTokens(body: WorkRequest | undefined): number {
  if (!body || typeof body !== "object") return 0;
  const parts = [body.input?.text, body.prompt, body.system, body.text, ...(Array.isArray(body.texts) ? body.texts : [])];
  const characters = parts.reduce<number>((sum, part) => sum + (typeof part === "string" ? part.length : 0), 0);
  return estimateTokens(characters);
}

/**
 * The output cap of a work request (`maxTokens`): an integer from 1 to 10^7, else a 400 naming
 * the field before anything is counted; absent → the default.
 *
 * @example
 * outputCapOf({ maxTokens: 256 }, 4096); // 256
 */
export function outputCapOf(body: { maxTokens?: unknown; model?: unknown } | undefined, defaultMaxOutputTokens: number): number {
  const cap = body?.maxTokens;
  if (cap === undefined || cap === null) return defaultMaxOutputTokens;
  // The model's documented limit when the table knows it (`outputLimitOf`), else 10^7.
  const modelLimit = typeof body?.model === "string" ? outputLimitOf(body.model) : undefined;
  const limit = Math.min(modelLimit ?? MAX_OUTPUT_TOKENS_LIMIT, MAX_OUTPUT_TOKENS_LIMIT);
  if (typeof cap !== "number" || !Number.isInteger(cap) || cap < 1 || cap > limit) {
    const message = `maxTokens must be an integer from 1 to ${limit}${modelLimit !== undefined ? ` (${String(body?.model)} answers at most ${modelLimit} output tokens)` : ""}`;
    throw new ServerValidationError(message, [{ field: "maxTokens", message: `an integer from 1 to ${limit}` }]);
  }
  return cap;
}

export interface ApiGateOptions {
  gate: Gate;
  /** Output tokens reserved when a request names no `maxTokens` (`keys.defaultMaxOutputTokens`). */
  defaultMaxOutputTokens: number;
  /** The server's request timeout (`config.timeout`): a call's lease lasts this long past it when its route names none. */
  timeoutMs?: number;
  /** Paths (default the AI-work routes under `/api`). */
  paths?: string[];
  /**
   * The model a request naming none runs on (the runtime's default provider, `<provider>/<model>`):
   * its reservation is priced by it. Without it such a request reserves at the dearest price known.
   */
  defaultModel?: () => Promise<string | undefined>;
}

/**
 * The runtime's default model as `<provider>/<model>` (asked once), or undefined when it names none.
 *
 * @example
 * const defaultModel = runtimeDefaultModel(runtime); await defaultModel(); // "local/echo"
 */
export function runtimeDefaultModel(runtime: Pick<Runtime, "listProviders"> | undefined): () => Promise<string | undefined> {
  let answer: Promise<string | undefined> | undefined;
  return () => {
    answer ??= (async () => {
      const providers = (await runtime?.listProviders().catch(() => [])) ?? [];
      const provider = providers.find((candidate) => candidate.default) ?? providers[0];
      const model = provider?.models[0];
      return provider && model ? `${provider.name}/${model}` : undefined;
    })();
    return answer;
  };
}

/**
 * The auth type `virtual-key` on `/api`: the AI-work routes (`/api/agent/*`) are admitted by the
 * gate before the handler and settled from the runtime's usage after it (a stream: its final
 * `finish`; a client gone before it: the reservation stands; a failed call: nothing charged).
 * The key becomes `ctx.user` (role `virtual-key`) for what runs later.
 *
 * @example
 * server.registerMiddleware(createApiGateMiddleware({ gate, defaultMaxOutputTokens: 4096 }));
 */
export function createApiGateMiddleware(options: ApiGateOptions): MiddlewareDefinition {
  return {
    name: "governance-virtual-key",
    // After request id / CORS, with the auth middleware's slot: nothing of the work runs before it.
    order: 40,
    paths: options.paths ?? GATED_API_PATHS,
    handler: async (ctx: ServerContext, next) => {
      if (ctx.method !== "POST") return next();
      const body = (await ctx.readBody().catch(() => undefined)) as WorkRequest | undefined;
      const model = typeof body?.model === "string" ? body.model : undefined;
      const estimatedInputTokens = estimateInputTokens(body);
      const credential = credentialOf((name) => ctx.header(name));
      // A caller without a key learns that first; a number the gate cannot count is a 400 naming it.
      const maxOutputTokens = credential === undefined ? options.defaultMaxOutputTokens : outputCapOf(body, options.defaultMaxOutputTokens);
      const timeoutMs = ctx.route?.timeoutMs ?? options.timeoutMs;
      // The allow-list checks the name the caller used; the price is the model the call will run on.
      const defaultModel = model === undefined ? await options.defaultModel?.() : undefined;
      const decision = await options.gate.admit({
        credential,
        surface: "api",
        ...(model ? { model } : {}),
        ...(defaultModel ? { models: [defaultModel] } : {}),
        estimatedInputTokens,
        maxOutputTokens,
        signal: ctx.abortSignal,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      });
      if ("refused" in decision) {
        if (decision.final) ctx.setHeader("x-should-retry", "false");
        throw apiRefusalError(decision);
      }
      const { identity } = decision;
      ctx.user ??= virtualKeyUser(identity);
      // The operator console's live feed: the key's id and name and the model — never the secret or content.
      annotateRequestFeed(ctx, { key: identity.keyId, keyName: identity.name, ...(model ? { model } : {}) });
      const started = performance.now();
      let finished = false;
      const finish = (work: () => Promise<void>) => {
        if (finished) return;
        finished = true;
        // Off the answer's path: the settlement is one Redis call the client need not wait for.
        work().catch(() => undefined);
      };
      observeRuntimeCall(ctx, (outcome) =>
        finish(() => {
          // A client that left makes the runtime end in an abort error: no failure of the call, whose reservation stands.
          const failed = outcome.failed && !ctx.abortSignal.aborted;
          if (failed && !outcome.usage) return decision.release();
          const usage = outcome.usage ?? { inputTokens: estimatedInputTokens, outputTokens: maxOutputTokens };
          const served = outcome.model ?? model ?? "unknown";
          annotateRequestFeed(ctx, { model: served, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
          const named = {
            model: served,
            ...(outcome.provider ? { target: `${outcome.provider}/${served}` } : {}),
            status: failed ? 500 : 200,
            latencyMs: performance.now() - started,
          };
          // A client gone before the stream's usage: the reservation stands, exactly as reserved.
          // The call's guardrail hits go into its usage event (names and entity types, never content).
          const guardrails = guardrailHitsOf(ctx);
          if (!outcome.usage && decision.settleAtReservation) return decision.settleAtReservation(named);
          return decision.settle({ ...named, ...gateTokensOf(usage), ...(guardrails ? { guardrails } : {}) });
        }),
      );
      try {
        await next();
      } catch (error) {
        finish(() => decision.release());
        throw error;
      }
      // Nothing was generated (a validation error answered, an embed route): charge nothing.
      if (!ctx.response.streaming) finish(() => decision.release());
    },
  };
}
