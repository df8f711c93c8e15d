import { type AuthenticatedUser, type MiddlewareDefinition, type ServerContext, isStoreUnavailable } from "@conduit-ai/server-core";
import { annotateRequestFeed } from "@conduit-ai/server-core/internal";
import type { GovernanceGate } from "../gate/governance-gate.js";
import { missingKey, refusalOf, storeUnavailable } from "../gate/refusals.js";
import { credentialOf } from "../key-secret.js";
import { GATED_API_PATHS, virtualKeyUser } from "./api-gate-middleware.js";
import { apiRefusalError } from "./api-refusal.js";

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

export interface VirtualKeyGuardOptions {
  gate: GovernanceGate;
  /** The server's `basePath` (`/api`): the guard covers every route under it. */
  basePath: string;
  /** Paths under `basePath` open without a key besides the probes (e.g. `/metrics`, which has its own rule). */
  publicPaths?: string[];
}

/**
 * With `auth.type: "virtual-key"`, every route under `basePath` asks for a live virtual key
 * (401 `MISSING_KEY` / `INVALID_KEY`, 503 while the key store is unreachable) — memory, tools,
 * MCP, workflows alike, fail closed — except the probes. The routes that start AI work per
 * request (`/agent/*`) are admitted by the gate middleware instead; the workflows' model calls
 * by `gateRuntime`, which finds the caller's key through `digestOfCaller`.
 *
 * @example
 * server.registerMiddleware(createVirtualKeyGuard({ gate, basePath: "/api", publicPaths: ["/metrics"] }));
 */
export function createVirtualKeyGuard(options: VirtualKeyGuardOptions): MiddlewareDefinition {
  const base = options.basePath === "/" ? "" : options.basePath.replace(/\/$/, "");
  const open = new Set([...PUBLIC_API_PATHS, ...(options.publicPaths ?? [])].map((path) => `${base}${path}`));
  const admittedByGate = new Set(GATED_API_PATHS.map((path) => `${base}${path}`));
  return {
    name: "governance-virtual-key-guard",
    order: 40,
    paths: [`${base}/*`],
    handler: async (ctx: ServerContext, next) => {
      const path = ctx.path.replace(/\/$/, "") || "/";
      if (ctx.method === "OPTIONS" || open.has(path) || (ctx.method === "POST" && admittedByGate.has(path))) return next();
      const credential = credentialOf((name) => ctx.header(name));
      if (credential === undefined) throw apiRefusalError(missingKey());
      let identity: Awaited<ReturnType<GovernanceGate["identifyCredential"]>>;
      try {
        identity = await options.gate.identifyCredential(credential);
      } catch (error) {
        if (isStoreUnavailable(error)) throw apiRefusalError(storeUnavailable());
        throw error;
      }
      if (identity === undefined) throw apiRefusalError(refusalOf({ admitted: false, reason: "invalid_key" }, undefined));
      ctx.user ??= virtualKeyUser(identity);
      callerDigests.set(ctx.user, options.gate.digestOf(credential));
      annotateRequestFeed(ctx, { key: identity.keyId, keyName: identity.name });
      await next();
    },
  };
}
