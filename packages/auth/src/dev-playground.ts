import type { ServerContext } from "@conduit-ai/server-core";

/** The header the dev playground sends; only honored outside production. */
export const DEV_PLAYGROUND_HEADER = "x-dev-playground";

/**
 * True for a dev playground request (`x-dev-playground: true`) while `NODE_ENV` is not
 * `production`. `NODE_ENV` is read on every request, so a process switched to
 * production never keeps honoring the bypass.
 *
 * @example
 * isDevPlaygroundRequest(ctx); // false whenever NODE_ENV === "production"
 */
export function isDevPlaygroundRequest(ctx: ServerContext): boolean {
  if (process.env.NODE_ENV === "production") return false;
  return ctx.header(DEV_PLAYGROUND_HEADER)?.trim().toLowerCase() === "true";
}
