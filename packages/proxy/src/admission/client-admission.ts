import {
  AuthenticationError,
  type Gate,
  type GateReservationOutcome,
  type GateSurface,
  type GateUsage,
  type ServerContext,
} from "@conduit-ai/server-core";
import type { Guardrails } from "@conduit-ai/guardrails";
import { type RateLimiter, annotateRequestFeed, setRateLimitHeaders } from "@conduit-ai/server-core/internal";
import { createClientCheck, credentialDigest, presentedCredential } from "./client-auth.js";
import { GateRefusedError } from "../wire/gate-refusal.js";
import { type CallGuard, callGuardOf, guardrailHitsOf } from "./call-guard.js";
import { clientKeyRefusal } from "./client-auth.js";

/** What a surface knows of a call before it goes upstream. */
export interface AdmissionRequest {
  surface: GateSurface;
  /** The model as the client named it (the allow-list checks it). */
  model?: string;
  /** What an alias may reach (target and fallbacks): the gate reserves at the dearest. */
  models?: readonly string[];
  estimatedInputTokens: number;
  maxOutputTokens?: number;
}

/**
 * An admitted call, finished once: `settle` with upstream's usage; `settleAtReservation` when the
 * call may have reached upstream but no usage was reported (the client left, the stream was cut):
 * charged exactly what the gate reserved; `release` when nothing reached upstream.
 */
export interface Admitted {
  /** Whose answers may be shared (the response cache): the gate's team, else its key; without a gate, the server's clients. */
  readonly cacheScope: string;
  /** The key's (or its team's) choice for the response cache; absent: the proxy's default. */
  readonly cacheWanted?: boolean;
  settle(usage: GateUsage): void;
  settleAtReservation(outcome: GateReservationOutcome): void;
  release(): void;
  /** The guardrails the call runs; absent when none apply. */
  guard?: CallGuard;
}

/**
 * Who may use the proxy's AI surfaces and how much: the client check (the server's own auth, or
 * one of `clientKeys`) — or, with a gate, the gate's `admit` instead — then the per-credential
 * limit. Refusals are thrown as server errors, so each surface's error writer shapes them.
 *
 * @example
 * admission.precheck(ctx);                       // 401 before the body is read (no gate)
 * const admitted = await admission.admit(ctx, { surface: "anthropic", model, estimatedInputTokens, maxOutputTokens });
 */
export interface ClientAdmission {
  /** True when a gate decides who is admitted. */
  readonly gated: boolean;
  /** Throws 401 when the caller cannot be admitted whatever its body (no gate: the client check). */
  precheck(ctx: ServerContext): void;
  /** The per-credential limit, then the gate's admission (when there is a gate). */
  admit(ctx: ServerContext, request: AdmissionRequest): Promise<Admitted>;
}

export interface ClientAdmissionOptions {
  clientKeys: readonly string[];
  /** Requests per client credential (keyed by a digest of it, or the server user's id). */
  limiter?: RateLimiter;
  gate?: Gate;
  /** The configured guardrails: each admitted call gets the set its key and team select. */
  guardrails?: Guardrails;
  onWarning?: (message: string) => void;
}

/** `ctx.state` key of the caller's limiter key (a digest, never the secret). */
export const CLIENT_LIMIT_KEY = "conduit.proxy.clientKey";

/**
 * What the operator console's live feed shows of a call (`annotateRequestFeed`): the model and,
 * once settled, the tokens upstream reported — never content. The key is added by the gate's admission.
 */
function annotateUsage(ctx: ServerContext, usage: GateUsage): void {
  annotateRequestFeed(ctx, { model: usage.model, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
}

/** The limiter key of a caller: the server user's id, or a digest of its credential. */
export function clientLimitKey(ctx: ServerContext): string | undefined {
  if (ctx.user) return `user:${ctx.user.id}`;
  const credential = presentedCredential(ctx);
  return credential === undefined ? undefined : `key:${credentialDigest(ctx, credential).toString("hex", 0, 16)}`;
}

/**
 * The admission of one proxy (see `ClientAdmission`).
 *
 * @example
 * const admission = createClientAdmission({ clientKeys: config.clientKeys, limiter, gate });
 */
export function createClientAdmission(options: ClientAdmissionOptions): ClientAdmission {
  const isClientAllowed = createClientCheck(options.clientKeys);
  const gate = options.gate;
  const warn = options.onWarning ?? (() => {});

  async function limit(ctx: ServerContext): Promise<void> {
    const limiter = options.limiter;
    const key = clientLimitKey(ctx);
    if (!limiter || key === undefined) return;
    ctx.state[CLIENT_LIMIT_KEY] = key;
    const outcome = await limiter.consume(ctx);
    if (!outcome.info) return;
    setRateLimitHeaders(ctx, outcome.info);
    if (!outcome.allowed) await limiter.reject(ctx, outcome.info);
  }

  return {
    gated: gate !== undefined,
    precheck(ctx) {
      if (!gate && !isClientAllowed(ctx)) throw new AuthenticationError(clientKeyRefusal(ctx));
    },
    async admit(ctx, request) {
      if (request.model !== undefined) annotateRequestFeed(ctx, { model: request.model });
      if (!gate) {
        await limit(ctx);
        const guard = callGuardOf(options.guardrails, ctx);
        return {
          // Always present (undefined without guardrails): a conditional spread of an object here cost microseconds per call.
          guard,
          cacheScope: "clients",
          settle: (usage) => annotateUsage(ctx, usage),
          settleAtReservation: (outcome) => {
            if (outcome.model !== undefined) annotateRequestFeed(ctx, { model: outcome.model });
          },
          release: () => {},
        };
      }
      const decision = await gate.admit({
        credential: presentedCredential(ctx),
        surface: request.surface,
        estimatedInputTokens: request.estimatedInputTokens,
        signal: ctx.abortSignal,
        ...(request.model !== undefined ? { model: request.model } : {}),
        ...(request.models !== undefined ? { models: request.models } : {}),
        ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
        // The route's own timeout: the lease outlives it by a margin, not by a quarter hour.
        ...(ctx.route?.timeoutMs !== undefined ? { timeoutMs: ctx.route.timeoutMs } : {}),
      });
      if ("refused" in decision) throw new GateRefusedError(decision);
      // The key's id and name for the live feed (never its secret).
      annotateRequestFeed(ctx, { key: decision.identity.keyId, keyName: decision.identity.name });
      try {
        await limit(ctx);
      } catch (error) {
        await decision.release().catch(() => warn("proxy: releasing a gate admission failed"));
        throw error;
      }
      let done = false;
      const { identity } = decision;
      const guard = callGuardOf(options.guardrails, ctx, identity);
      return {
        guard,
        cacheScope: identity.team !== undefined ? `team:${identity.team}` : `key:${identity.keyId}`,
        ...(identity.cache !== undefined ? { cacheWanted: identity.cache } : {}),
        settle(usage) {
          if (done) return;
          done = true;
          annotateUsage(ctx, usage);
          const guardrails = guardrailHitsOf(ctx);
          decision.settle(guardrails ? { ...usage, guardrails } : usage).catch(() => warn("proxy: settling a gate admission failed"));
        },
        settleAtReservation(outcome) {
          if (done) return;
          done = true;
          if (outcome.model !== undefined) annotateRequestFeed(ctx, { model: outcome.model });
          const failed = () => warn("proxy: settling a gate admission failed");
          if (decision.settleAtReservation) return void decision.settleAtReservation(outcome).catch(failed);
          // A gate without it is told, as usage, the part of the reservation the proxy knows.
          decision
            .settle({
              model: outcome.model ?? request.model ?? "unknown",
              ...(outcome.target ? { target: outcome.target } : {}),
              inputTokens: request.estimatedInputTokens,
              outputTokens: request.maxOutputTokens ?? 0,
              status: outcome.status,
              latencyMs: outcome.latencyMs,
            })
            .catch(failed);
        },
        release() {
          if (done) return;
          done = true;
          decision.release().catch(() => warn("proxy: releasing a gate admission failed"));
        },
      };
    },
  };
}
