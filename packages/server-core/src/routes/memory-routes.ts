import { defineRoute, type RouteGroup } from "../contracts/route.js";
import type { Runtime } from "../contracts/runtime.js";
import {
  sessionClearedResponseSchema,
  sessionDeletedResponseSchema,
  sessionListResponseSchema,
  sessionMessagesResponseSchema,
  sessionSchema,
} from "./response-schemas.js";
import { requireRuntime, resourceNotFound } from "./route-support.js";
import { sessionClearParamsSchema, sessionIdParamsSchema, sessionMessagesQuerySchema } from "./schemas.js";

const sessionNotFound = (id: string) => resourceNotFound("SESSION_NOT_FOUND", `Session "${id}" not found`, { id });

/**
 * The memory group: conversation sessions and their messages (paginated).
 * Unknown session → 404 `SESSION_NOT_FOUND`.
 *
 * @example
 * adapter.registerRouteGroup(createMemoryRoutes(runtime));
 * // GET /api/memory/sessions/s1/messages?limit=20&offset=0 → {data:{sessionId, messages, total, limit, offset}}
 */
export function createMemoryRoutes(runtime: Runtime | undefined): RouteGroup {
  const memory = () => requireRuntime(runtime).memory;
  return {
    prefix: "/memory",
    tags: ["memory"],
    routes: [
      defineRoute({
        method: "GET",
        path: "/sessions",
        summary: "List conversation sessions",
        schema: { response: sessionListResponseSchema() },
        handler: async () => {
          const sessions = await memory().listSessions();
          return { sessions, total: sessions.length };
        },
      }),
      defineRoute({
        method: "GET",
        path: "/sessions/:id",
        summary: "Describe one session",
        schema: { params: sessionIdParamsSchema(), response: sessionSchema() },
        handler: async (ctx) => {
          const session = await memory().getSession(ctx.params.id);
          if (session === undefined) throw sessionNotFound(ctx.params.id);
          return session;
        },
      }),
      defineRoute({
        method: "GET",
        path: "/sessions/:id/messages",
        summary: "Messages of one session, oldest first, paginated",
        schema: { params: sessionIdParamsSchema(), query: sessionMessagesQuerySchema(), response: sessionMessagesResponseSchema() },
        handler: async (ctx) => {
          const page = await memory().getMessages(ctx.params.id, { limit: ctx.query.limit, offset: ctx.query.offset });
          if (page === undefined) throw sessionNotFound(ctx.params.id);
          return page;
        },
      }),
      defineRoute({
        method: "DELETE",
        path: "/sessions/:id",
        summary: "Delete a session and its messages",
        schema: { params: sessionIdParamsSchema(), response: sessionDeletedResponseSchema() },
        handler: async (ctx) => {
          if (!(await memory().deleteSession(ctx.params.id))) throw sessionNotFound(ctx.params.id);
          return { id: ctx.params.id, deleted: true };
        },
      }),
      defineRoute({
        method: "POST",
        path: "/sessions/:sessionId/clear",
        summary: "Clear a session's history (the session remains)",
        schema: { params: sessionClearParamsSchema(), response: sessionClearedResponseSchema() },
        handler: async (ctx) => {
          if (!(await memory().clearSession(ctx.params.sessionId))) throw sessionNotFound(ctx.params.sessionId);
          return { sessionId: ctx.params.sessionId, cleared: true };
        },
      }),
    ],
  };
}
