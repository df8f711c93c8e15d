import { AuthenticationError, AuthorizationError, type MiddlewareDefinition, storeCall } from "@conduit-ai/server-core";
import type { CredentialFailureGuard } from "@conduit-ai/server-core/middleware";
import type { AdminVerdict } from "./admin-check.js";

/** The credential a request presents: `Authorization: Bearer`, else `x-api-key`. */
function presentedCredential(header: (name: string) => string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(header("authorization") ?? "");
  return match?.[1]?.trim() || header("x-api-key") || undefined;
}

/**
 * The admin surface's own guard, on every `/admin/*` route: an admin passes; an authenticated
 * caller without the role (the server's auth, or a valid virtual key) gets 403; anyone else 401.
 * A presented credential that is not an admin's counts against `failures` (per address and per
 * credential; 429 `TOO_MANY_FAILED_CREDENTIALS` past the limit) — except on an in-process
 * forward, which the console already checked.
 */
export function adminAuthMiddleware(
  check: (ctx: Parameters<MiddlewareDefinition["handler"]>[0]) => AdminVerdict,
  isVirtualKey: (credential: string) => Promise<boolean>,
  failures?: CredentialFailureGuard,
): MiddlewareDefinition {
  return {
    name: "governance-admin-auth",
    handler: async (ctx, next) => {
      const presented = presentedCredential((name) => ctx.header(name));
      const guarded = failures !== undefined && presented !== undefined && ctx.inProcess !== true;
      const attempt = guarded ? await failures.check(ctx, presented) : undefined;
      const verdict = check(ctx);
      if (verdict === "admin") {
        if (attempt) await failures?.succeeded(attempt);
        return next();
      }
      if (attempt) await failures?.failed(attempt);
      if (verdict === "forbidden") throw new AuthorizationError("The admin role is required");
      // Bounded: with the store hung or down the caller is simply not known (401), not kept waiting.
      const known = presented ? await storeCall("governance", () => isVirtualKey(presented)).catch(() => false) : false;
      if (known) throw new AuthorizationError("The admin role is required");
      ctx.setHeader("www-authenticate", 'Bearer realm="conduit-admin"');
      throw new AuthenticationError("An admin key is required (Authorization: Bearer)");
    },
  };
}
