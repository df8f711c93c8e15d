import type { AuthenticatedUser, MiddlewareDefinition, Runtime, ServerContext } from "@conduit-ai/server-core";
import { BoundedCache, recordGuardrailHits } from "@conduit-ai/server-core/internal";
import { guardRuntime } from "./guarded-runtime.js";
import { GuardrailViolation } from "./guardrail-violation.js";
import type { Guardrails } from "./guardrails.js";
import { workRequestSlots } from "./work-request-texts.js";

/** The server's guardrails on `/api`: a middleware for `/api/agent/*` requests, and the runtimes the routes call. */
export interface ApiGuardrails {
  /** Checks `/api/agent/*` requests before the handler (a block is the server's 400 envelope), after the key's auth. */
  middleware: MiddlewareDefinition;
  /**
   * Lets the workflows' runtime put its hits on their `/api/ai/*` request (its live feed entry and
   * span); checks nothing itself — each model call's prompt is checked by `workflowRuntime`.
   */
  workflowMiddleware: MiddlewareDefinition;
  /** The runtime of `/api/agent/*` (its requests are the middleware's): answers and streams checked. */
  agentRuntime(runtime: Runtime): Runtime;
  /** The runtime of the `/api/ai/*` workflows: every model call's prompt and answer checked. */
  workflowRuntime(runtime: Runtime): Runtime;
}

/** A virtual key's guardrail names (its team's, then its own), as governance's auth puts them on `ctx.user`. */
function listsOf(user: AuthenticatedUser | undefined): string[][] {
  const names = user?.metadata?.guardrails;
  return Array.isArray(names) && names.every((name) => typeof name === "string") ? [names as string[]] : [];
}

/**
 * The guardrails of the server's own AI surfaces. Requests to `/api/agent/*` are checked by the
 * middleware, so a block is a 400 `guardrail_violation` in the server's error envelope even on
 * `/api/agent/stream` (before the stream opens) and a mask rewrites the body the handler reads;
 * answers are checked by the runtime the routes call. Hits go to the request's live feed entry,
 * span and usage event (found by request id) and to the guardrails' listeners (metrics).
 *
 * @example
 * const api = createApiGuardrails(guardrails);
 * server.registerMiddleware(api.middleware);
 * server.registerMiddleware(api.workflowMiddleware);
 * const server = await createServer(api.agentRuntime(runtime));
 */
export function createApiGuardrails(guardrails: Guardrails, options: { paths?: string[]; workflowPaths?: string[] } = {}): ApiGuardrails {
  /** request id → its context, while its answer may still stream: the runtime's hits are recorded on it. */
  const calls = new BoundedCache<WeakRef<ServerContext>>({ maxEntries: 10_000 });
  const runtimeOf = (runtime: Runtime, checkRequests: boolean) =>
    guardRuntime(guardrails, runtime, {
      checkRequests,
      listsOf: (context) => listsOf(context?.user),
      onHits: (hits, context) => {
        const ctx = context?.requestId === undefined ? undefined : calls.get(context.requestId)?.deref();
        if (ctx) recordGuardrailHits(ctx, hits);
      },
    });
  return {
    middleware: {
      name: "guardrails",
      // After the virtual key's admission (order 40): its guardrail lists are on `ctx.user`.
      order: 45,
      paths: options.paths ?? ["/agent/*"],
      handler: async (ctx: ServerContext, next) => {
        if (ctx.method !== "POST") return next();
        const set = guardrails.select(listsOf(ctx.user));
        if (!set) return next();
        calls.set(ctx.requestId, new WeakRef(ctx));
        if (set.checks("request")) {
          const body = await ctx.readBody().catch(() => undefined);
          const model = (body as { model?: unknown } | undefined)?.model;
          const team = ctx.user?.metadata?.team;
          const outcome = await set.checkTexts("request", workRequestSlots(body), {
            surface: "api",
            ...(ctx.user?.roles.includes("virtual-key") ? { key: ctx.user.id } : {}),
            ...(typeof team === "string" ? { team } : {}),
            ...(typeof model === "string" ? { model } : {}),
          });
          recordGuardrailHits(ctx, outcome.hits);
          guardrails.record(outcome.hits);
          if (outcome.block) throw new GuardrailViolation(outcome.block);
        }
        return next();
      },
    },
    workflowMiddleware: {
      name: "guardrails-workflows",
      order: 45,
      paths: options.workflowPaths ?? ["/ai/*"],
      handler: (ctx: ServerContext, next) => {
        // Only a caller with rules: the runtime finds the request by the id its calls carry.
        if (ctx.method === "POST" && guardrails.select(listsOf(ctx.user))) calls.set(ctx.requestId, new WeakRef(ctx));
        return next();
      },
    },
    agentRuntime: (runtime) => runtimeOf(runtime, false),
    workflowRuntime: (runtime) => runtimeOf(runtime, true),
  };
}
