import type { RouteDefinition, ServerContext } from "@conduit-ai/server-core";
import { clientKeyError } from "../../admission/client-auth.js";
import type { ProxyRouteDeps } from "../route-deps.js";

/** `GET /accounts`: one row per account, no secret. */
export function createAccountsRoute(deps: ProxyRouteDeps): RouteDefinition {
  return {
    method: "GET",
    path: "/accounts",
    absolute: true,
    summary: "Proxy accounts: status, cooldown, quota, token totals and cost",
    tags: ["proxy"],
    handler: async (ctx: ServerContext) => {
      if (!deps.isClientAllowed(ctx)) throw clientKeyError(ctx);
      return { accounts: await deps.pool.rows() };
    },
  };
}
