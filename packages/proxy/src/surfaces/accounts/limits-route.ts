import type { RouteDefinition, ServerContext } from "@conduit-ai/server-core";
import { clientKeyError } from "../../admission/client-auth.js";
import { parseRateLimitHeaders } from "../../wire/anthropic-messages/rate-limit-headers.js";
import { credentialHeaders } from "../../wire/anthropic-messages/request-headers.js";
import type { ProxyRouteDeps } from "../route-deps.js";

/**
 * `GET /limits`: quota per account. Live by default (a one-token request per usable account
 * reads fresh rate-limit headers); `?snapshot=true` answers from the stored state only.
 */
export function createLimitsRoute(deps: ProxyRouteDeps): RouteDefinition {
  return {
    method: "GET",
    path: "/limits",
    absolute: true,
    summary: "Per-account quota (live, or stored with ?snapshot=true)",
    tags: ["proxy"],
    handler: async (ctx: ServerContext) => {
      if (!deps.isClientAllowed(ctx)) throw clientKeyError(ctx);
      const snapshot = ctx.query.snapshot === "true" || ctx.query.snapshot === "1";
      if (!snapshot) await probeAccounts(deps, ctx.abortSignal);
      const rows = await deps.pool.rows();
      return {
        snapshot,
        accounts: rows.map((row) => ({
          id: row.id,
          vendor: row.vendor,
          status: row.status,
          cooldownUntil: row.cooldownUntil,
          quota: row.quota,
        })),
      };
    },
  };
}

/** Reads fresh quota headers for each usable Anthropic account; failures leave the stored quota. */
async function probeAccounts(deps: ProxyRouteDeps, signal: AbortSignal): Promise<void> {
  const fetchImpl = deps.fetch ?? fetch;
  const rows = await deps.pool.rows();
  const endpoint = `${deps.config.upstream.anthropic.replace(/\/+$/, "")}/v1/messages`;
  const probe = JSON.stringify({ model: deps.config.probeModel, max_tokens: 1, messages: [{ role: "user", content: "." }] });
  await Promise.all(
    deps.pool
      .list("anthropic")
      .filter((account) => rows.find((row) => row.id === account.id)?.status !== "disabled")
      .map(async (account) => {
        try {
          const credential = credentialHeaders(
            account,
            account.type === "api-key" ? account.apiKey : await deps.pool.oauth.accessToken(account),
          );
          const response = await fetchImpl(endpoint, {
            method: "POST",
            headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...credential },
            body: probe,
            signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
          });
          await response.body?.cancel();
          const quota = parseRateLimitHeaders(Object.fromEntries(response.headers), Date.now());
          if (quota) await deps.pool.saveQuota(account.id, quota);
        } catch {
          // Live data is best effort: the stored quota stays.
        }
      }),
  );
}
