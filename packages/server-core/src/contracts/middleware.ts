import type { ServerContext } from "./context.js";

export type Next = () => Promise<void>;

/**
 * Middleware runs in ascending `order` (default 100) around the route handler, on
 * every adapter alike, whatever the order of registration.
 *
 * @example
 * const poweredBy: MiddlewareDefinition = {
 *   name: "powered-by",
 *   order: 10,
 *   handler: async (ctx, next) => { await next(); ctx.setHeader("x-powered-by", "conduit"); },
 * };
 */
export interface MiddlewareDefinition {
  name: string;
  order?: number;
  // biome-ignore lint/suspicious/noExplicitAny: middleware must accept contexts of any typed route
  handler: (ctx: ServerContext<any, any, any>, next: Next) => Promise<void> | void;
  /** Paths it applies to (default all): exact, or a prefix ending in `*`; matched with and without `basePath`. */
  paths?: string[];
  excludePaths?: string[];
}
