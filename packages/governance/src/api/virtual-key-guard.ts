import {
  type AuthenticatedUser,
  type GateIdentity,
  type GateRefusal,
  type MiddlewareDefinition,
  type Runtime,
  type ServerContext,
  isStoreUnavailable,
} from "@conduit-ai/server-core";
import { annotateRequestFeed, guardrailHitsOf, wrapRequestRuntime } from "@conduit-ai/server-core/internal";
import type { GovernanceGate } from "../gate/governance-gate.js";
import { invalidKeyRecord, missingKey, refusalOf, storeUnavailable } from "../gate/refusals.js";
import { UnreadableRecordError } from "../mcp/identity-of-digest.js";
import { credentialOf } from "../key-secret.js";
import { apiRefusalError } from "./api-refusal.js";
import { gateRuntime, runtimeDefaultModel } from "./gated-runtime.js";

/** The probes a load balancer or an orchestrator calls without a credential (relative to `basePath`). */
export const PUBLIC_API_PATHS = ["/health", "/health/live", "/health/ready", "/ready"];

/** The key digest behind each caller the guard admitted, by the user object it set (it travels into runtime calls). */
const callerDigests = new WeakMap<AuthenticatedUser, string>();

/**
 * The key digest of a caller the guard admitted (`RuntimeCallContext.user` of a runtime call made
 * for its request), or undefined — a call without one is refused by `gateRuntime`.
 *
 * @example
 * gateRuntime(gate, runtime, { surface: "api", defaultMaxOutputTokens, digestOf: (context) => digestOfCaller(context?.user) });
 */
export function digestOfCaller(user: AuthenticatedUser | undefined): string | undefined {
  return user === undefined ? undefined : callerDigests.get(user);
}

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

export interface VirtualKeyGuardOptions {
  gate: GovernanceGate;
  /** The server's `basePath` (`/api`): the guard covers every route under it. */
  basePath: string;
  /** Paths under `basePath` open without a key besides the probes (e.g. `/metrics`, which has its own rule). */
  publicPaths?: string[];
  /** Output tokens reserved when a request names no `maxTokens` (`keys.defaultMaxOutputTokens`). */
  defaultMaxOutputTokens: number;
  /** The server's request timeout (`config.timeout`): a call's lease lasts this long past it when its route names none. */
  timeoutMs?: number;
}

/**
 * With `auth.type: "virtual-key"`, every route under `basePath` asks for a live virtual key
 * (401 `MISSING_KEY` / `INVALID_KEY`, 503 while the key store is unreachable) — agent, memory,
 * tools, MCP, workflows alike, fail closed — except the probes. The runtime the request's routes
 * call is the gated one (`gateRuntime`): each model call is admitted, reserved and settled
 * against the caller's key, whatever the route. The key becomes `ctx.user` (role `virtual-key`).
 *
 * @example
 * server.registerMiddleware(createVirtualKeyGuard({ gate, basePath: "/api", publicPaths: ["/metrics"], defaultMaxOutputTokens: 4096 }));
 */
export function createVirtualKeyGuard(options: VirtualKeyGuardOptions): MiddlewareDefinition {
  const base = options.basePath === "/" ? "" : options.basePath.replace(/\/$/, "");
  const open = new Set([...PUBLIC_API_PATHS, ...(options.publicPaths ?? [])].map((path) => `${base}${path}`));
  // The model a request naming none is priced at, asked once per runtime.
  const defaultModels = new WeakMap<Runtime, () => Promise<string | undefined>>();
  const defaultModelOf = (runtime: Runtime) => {
    const known = defaultModels.get(runtime);
    if (known) return known;
    const found = runtimeDefaultModel(runtime);
    defaultModels.set(runtime, found);
    return found;
  };
  // A refusal no retry can fix says so, as the proxy's surfaces do.
  const sayIfFinal = (ctx: ServerContext, refusal: GateRefusal) => {
    if (refusal.final) ctx.setHeader("x-should-retry", "false");
  };
  const refuse = (ctx: ServerContext, refusal: GateRefusal) => {
    sayIfFinal(ctx, refusal);
    return apiRefusalError(refusal);
  };
  return {
    name: "governance-virtual-key-guard",
    // After request id / CORS, with the auth middleware's slot: nothing of the work runs before it.
    order: 40,
    paths: [`${base}/*`],
    handler: async (ctx: ServerContext, next) => {
      const path = ctx.path.replace(/\/$/, "") || "/";
      if (ctx.method === "OPTIONS" || open.has(path)) return next();
      const credential = credentialOf((name) => ctx.header(name));
      if (credential === undefined) throw refuse(ctx, missingKey());
      let identity: Awaited<ReturnType<GovernanceGate["identifyCredential"]>>;
      try {
        identity = await options.gate.identifyCredential(credential);
      } catch (error) {
        if (isStoreUnavailable(error)) throw refuse(ctx, storeUnavailable());
        if (error instanceof UnreadableRecordError) throw refuse(ctx, invalidKeyRecord(error.scope));
        throw error;
      }
      if (identity === undefined) throw refuse(ctx, refusalOf({ admitted: false, reason: "invalid_key" }, undefined));
      ctx.user ??= virtualKeyUser(identity);
      const digest = options.gate.digestOf(credential);
      callerDigests.set(ctx.user, digest);
      // The operator console's live feed: the key's id and name, then each call's model and tokens — never the secret or content.
      annotateRequestFeed(ctx, { key: identity.keyId, keyName: identity.name });
      wrapRequestRuntime(ctx, (runtime) => {
        const timeoutMs = ctx.route?.timeoutMs ?? options.timeoutMs;
        return gateRuntime(options.gate, runtime, {
          surface: "api",
          defaultMaxOutputTokens: options.defaultMaxOutputTokens,
          digestOf: () => digest,
          defaultModel: defaultModelOf(runtime),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          annotate: (annotation) => annotateRequestFeed(ctx, annotation),
          onRefused: (refusal) => sayIfFinal(ctx, refusal),
          // The request's guardrail hits go into each call's usage event (names and entity types, never content).
          guardrailHits: () => guardrailHitsOf(ctx),
        });
      });
      await next();
    },
  };
}
