import { type RouteGroup, defineRoute, resourceNotFound } from "@conduit-ai/server-core";
import { z } from "zod";
import { getAuthContext, requireAuth } from "./auth-context.js";

/** A session as the auth routes list it. */
export interface AuthSessionSummary {
  id: string;
  createdAt: number;
  expiresAt: number;
  lastAccessedAt?: number;
  current: boolean;
}

/** Where the auth routes find a user's sessions; `@conduit-ai/auth-providers`' session manager is one. */
export interface AuthSessionSource {
  getUserSessions(
    userId: string,
  ): Promise<Array<{ id: string; userId: string; createdAt: number; expiresAt: number; lastAccessedAt?: number }>>;
  /** True when a session of that id belonged to the user and was destroyed. */
  destroyUserSession(userId: string, sessionId: string): Promise<boolean>;
  /** How many were destroyed. */
  destroyAllUserSessions(userId: string): Promise<number>;
}

export interface AuthRoutesOptions {
  /** Sessions to list and destroy; without it the caller has none (`session: null`, `[]`). */
  sessions?: AuthSessionSource;
  /** Default `/auth`, under the server's `basePath`. */
  prefix?: string;
}

const userSchema = z.object({ id: z.string(), email: z.string().optional(), roles: z.array(z.string()), permissions: z.array(z.string()) });
const sessionSchema = z.object({
  id: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
  lastAccessedAt: z.number().optional(),
  current: z.boolean(),
});

/**
 * The auth route group: who am I, my sessions, sign out one or all. Every route needs an
 * authenticated caller (401 otherwise) and only ever touches the caller's own sessions:
 * another user's session id answers 404 `SESSION_NOT_FOUND`, exactly like an unknown one.
 *
 * | route | answer |
 * |---|---|
 * | `GET /auth/me` | `{user: {id, email, roles, permissions}, session: {id, expiresAt} \| null}` |
 * | `GET /auth/sessions` | `{sessions: [{id, createdAt, expiresAt, lastAccessedAt, current}], total}` |
 * | `DELETE /auth/sessions/:id` | `{destroyed: true, id}` |
 * | `DELETE /auth/sessions` | `{destroyed: <count>}` |
 *
 * @example
 * server.registerRouteGroup(createAuthRoutes({ sessions: provider.sessions }));
 */
export function createAuthRoutes(options: AuthRoutesOptions = {}): RouteGroup {
  const sessions = options.sessions;
  return {
    prefix: options.prefix ?? "/auth",
    tags: ["auth"],
    routes: [
      defineRoute({
        method: "GET",
        path: "/me",
        summary: "The authenticated caller and the session of this request",
        schema: { response: z.object({ user: userSchema, session: z.object({ id: z.string(), expiresAt: z.number() }).nullable() }) },
        handler: (ctx) => {
          const user = requireAuth(ctx);
          const session = getAuthContext(ctx)?.session;
          return {
            user: {
              id: user.id,
              ...(user.email === undefined ? {} : { email: user.email }),
              roles: user.roles,
              permissions: user.permissions,
            },
            session: session ? { id: session.id, expiresAt: session.expiresAt } : null,
          };
        },
      }),
      defineRoute({
        method: "GET",
        path: "/sessions",
        summary: "The caller's sessions",
        schema: { response: z.object({ sessions: z.array(sessionSchema), total: z.number() }) },
        handler: async (ctx) => {
          const user = requireAuth(ctx);
          const current = getAuthContext(ctx)?.session?.id;
          const list = sessions ? await sessions.getUserSessions(user.id) : [];
          const summaries = list.map((session) => ({
            id: session.id,
            createdAt: session.createdAt,
            expiresAt: session.expiresAt,
            ...(session.lastAccessedAt === undefined ? {} : { lastAccessedAt: session.lastAccessedAt }),
            current: session.id === current,
          }));
          return { sessions: summaries, total: summaries.length };
        },
      }),
      defineRoute({
        method: "DELETE",
        path: "/sessions/:id",
        summary: "Destroy one of the caller's sessions",
        schema: { params: z.object({ id: z.string().min(1).max(200) }), response: z.object({ destroyed: z.boolean(), id: z.string() }) },
        handler: async (ctx) => {
          const user = requireAuth(ctx);
          const destroyed = sessions ? await sessions.destroyUserSession(user.id, ctx.params.id) : false;
          if (!destroyed) throw resourceNotFound("SESSION_NOT_FOUND", "Session not found", { id: ctx.params.id });
          return { destroyed: true, id: ctx.params.id };
        },
      }),
      defineRoute({
        method: "DELETE",
        path: "/sessions",
        summary: "Destroy every session of the caller (sign out everywhere)",
        schema: { response: z.object({ destroyed: z.number() }) },
        handler: async (ctx) => {
          const user = requireAuth(ctx);
          return { destroyed: sessions ? await sessions.destroyAllUserSessions(user.id) : 0 };
        },
      }),
    ],
  };
}
