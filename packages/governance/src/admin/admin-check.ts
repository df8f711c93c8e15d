import { createHash, timingSafeEqual } from "node:crypto";
import type { ServerContext } from "@conduit-ai/server-core";

/** Who an admin request is: an admin, someone authenticated without the role, or nobody known. */
export type AdminVerdict = "admin" | "forbidden" | "unauthenticated";

export interface AdminCheckOptions {
  /** Admin secrets from config (`admin.keys`). */
  keys?: readonly string[];
  /** Roles of the server's own auth (`ctx.user.roles`) that grant admin (default `["admin"]`). */
  roles?: readonly string[];
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * Checks an admin credential: `Authorization: Bearer <admin key>` against the configured keys
 * (compared as SHA-256 digests in constant time, every key every time), or a user the server's
 * own auth admitted with an admin role. The operator console is handed the same function.
 *
 * @example
 * const check = createAdminCheck({ keys: [process.env.CONDUIT_ADMIN_KEY ?? ""] });
 * if (check(ctx) !== "admin") throw ...;
 */
export function createAdminCheck(options: AdminCheckOptions): (ctx: Pick<ServerContext, "header" | "user">) => AdminVerdict {
  const digests = (options.keys ?? []).filter((key) => key.length > 0).map(digest);
  const roles = new Set(options.roles ?? ["admin"]);
  return (ctx) => {
    const match = /^Bearer\s+(.+)$/i.exec(ctx.header("authorization") ?? "");
    const presented = match?.[1]?.trim();
    if (presented) {
      const candidate = digest(presented);
      let matched = false;
      for (const key of digests) matched = timingSafeEqual(key, candidate) || matched;
      if (matched) return "admin";
    }
    if (ctx.user) return ctx.user.roles.some((role) => roles.has(role)) ? "admin" : "forbidden";
    return "unauthenticated";
  };
}
