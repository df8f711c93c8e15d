import type { ServerContext } from "../contracts/context.js";

// A symbol-keyed slot, not `ctx.state`: a credential must never travel with state that other
// middleware might log or serialize (symbol keys are skipped by JSON.stringify and Object.keys).
const CALL_TOKEN = Symbol.for("@conduit-ai/server-core/call-token");
type WithCallToken = ServerContext & { [CALL_TOKEN]?: string };

/**
 * Records the token an auth middleware took from the request (header, cookie or query), so the
 * routes hand that one to the runtime's per-call token validation as `authToken`.
 *
 * @example
 * setCallToken(ctx, tokenFromCookie);
 */
export function setCallToken(ctx: ServerContext, token: string): void {
  (ctx as WithCallToken)[CALL_TOKEN] = token;
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The token a runtime call carries: the one an auth middleware recorded with `setCallToken`,
 * else the `Authorization: Bearer` credential (scheme case-insensitive, RFC 7235), else none.
 * Other schemes (`Basic`, API keys) are not tokens the runtime can validate and stay out.
 *
 * @example
 * callTokenOf(ctx); // "eyJhbGciOi..." for `Authorization: Bearer eyJhbGciOi...`
 */
export function callTokenOf(ctx: Pick<ServerContext, "header">): string | undefined {
  const recorded = (ctx as WithCallToken)[CALL_TOKEN];
  if (recorded !== undefined) return recorded;
  return BEARER.exec(ctx.header("authorization") ?? "")?.[1];
}
