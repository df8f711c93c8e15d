import { AuthenticationError, AuthorizationError, type MiddlewareDefinition, storeCall } from "@conduit-ai/server-core";
import type { AdminVerdict } from "./admin-check.js";

/**
 * The admin surface's own guard, on every `/admin/*` route: an admin passes; an authenticated
 * caller without the role (the server's auth, or a valid virtual key) gets 403; anyone else 401.
 */
export function adminAuthMiddleware(
  check: (ctx: Parameters<MiddlewareDefinition["handler"]>[0]) => AdminVerdict,
  isVirtualKey: (credential: string) => Promise<boolean>,
): MiddlewareDefinition {
  return {
    name: "governance-admin-auth",
    handler: async (ctx, next) => {
      const verdict = check(ctx);
      if (verdict === "forbidden") throw new AuthorizationError("The admin role is required");
      if (verdict === "unauthenticated") {
        const match = /^Bearer\s+(.+)$/i.exec(ctx.header("authorization") ?? "");
        const presented = match?.[1]?.trim() ?? ctx.header("x-api-key");
        // Bounded: with the store hung or down the caller is simply not known (401), not kept waiting.
        const known = presented ? await storeCall("governance", () => isVirtualKey(presented)).catch(() => false) : false;
        if (known) throw new AuthorizationError("The admin role is required");
        ctx.setHeader("www-authenticate", 'Bearer realm="conduit-admin"');
        throw new AuthenticationError("An admin key is required (Authorization: Bearer)");
      }
      await next();
    },
  };
}
