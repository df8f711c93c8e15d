import type { ServerContext } from "@conduit-ai/server-core";
import { isLoopbackAddress } from "@conduit-ai/server-core/internal";

/** The header the dev playground sends. */
export const DEV_PLAYGROUND_HEADER = "x-dev-playground";

/** Headers a proxy adds: a request that went through one is not a local playground's. */
const FORWARDING_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip"];

/**
 * Whether an auth middleware built now may let dev playground requests through: only when the
 * process runs with `NODE_ENV=development` exactly, or `explicit` is true — and never when
 * `NODE_ENV=production`, whatever the switch says. Read once, when the middleware is built.
 *
 * @example
 * devPlaygroundEnabled(undefined); // true only under NODE_ENV=development
 */
export function devPlaygroundEnabled(explicit: boolean | undefined): boolean {
  const environment = process.env.NODE_ENV;
  if (environment === "production") return false;
  return explicit ?? environment === "development";
}

let warned = false;

/**
 * The startup warning of an auth middleware that honors the dev playground header (once per
 * process, through `process.emitWarning`, code `CONDUIT_DEV_PLAYGROUND`).
 */
export function warnDevPlayground(): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    `Auth lets requests with "${DEV_PLAYGROUND_HEADER}: true" from loopback addresses through without credentials (NODE_ENV=${process.env.NODE_ENV ?? "(unset)"} or devPlayground: true). Never run a server reachable by others like this.`,
    { code: "CONDUIT_DEV_PLAYGROUND" },
  );
}

/**
 * True for a dev playground request: `x-dev-playground: true` sent from this machine — the
 * socket peer and the client address both loopback, and no proxy in between. Whether the
 * header counts at all is decided once at startup (`devPlaygroundEnabled`).
 *
 * @example
 * isDevPlaygroundRequest(ctx); // false for any request through a proxy or from another host
 */
export function isDevPlaygroundRequest(ctx: ServerContext): boolean {
  if (ctx.header(DEV_PLAYGROUND_HEADER)?.trim().toLowerCase() !== "true") return false;
  // Enabled at startup, but a process since switched to production never honors it.
  if (process.env.NODE_ENV === "production") return false;
  if (FORWARDING_HEADERS.some((name) => ctx.header(name) !== undefined)) return false;
  return isLoopbackAddress(ctx.peerAddress) && isLoopbackAddress(ctx.clientAddress);
}
