import type { ProxyConfig } from "../../config.js";
import type { AccountPool } from "../../pool/account-pool.js";
import { forwardedRequestHeaders } from "../../relay/headers.js";
import { replyToResponse } from "../../relay/proxy-reply.js";
import { type Relay, createRelay, secondsUntil } from "../../relay/relay.js";
import type { UpstreamClient } from "../../relay/transport.js";
import type { VendorWire } from "../../relay/vendor-wire.js";
import { CodexUsageScanner } from "../../wire/codex/codex-usage.js";
import { DEFAULT_USAGE_LIMIT_COOLDOWN_MS, codexErrorReply, codexErrorType, usageLimitResetAt } from "../../wire/codex/usage-limit.js";

/** Sends one codex Responses request (raw bytes) through the pool of codex accounts. */
export type SendCodex = (body: Uint8Array, init: { headers: Record<string, string>; signal: AbortSignal }) => Promise<Response>;

/** The account names its own ChatGPT account; the client's is never forwarded. */
const CODEX_DROPPED = new Set(["chatgpt-account-id"]);

export interface CodexSenderOptions {
  pool: AccountPool;
  config: Pick<ProxyConfig, "upstream" | "sessionHeader" | "maxRetries" | "retryBaseMs">;
  upstream?: UpstreamClient;
  onWarning?: (message: string) => void;
}

/**
 * The codex backend's wire: `{upstream.codex}/backend-api/codex/responses` with the account's
 * bearer token and `chatgpt-account-id`; `usage_limit_reached` (or a 429 naming a reset) cools
 * the account until its reset; usage from the `response.completed` event.
 */
export function codexWire(config: Pick<ProxyConfig, "upstream" | "sessionHeader">): VendorWire {
  const endpoint = `${config.upstream.codex.replace(/\/+$/, "")}/backend-api/codex/responses`;
  const sessionHeader = config.sessionHeader.toLowerCase();
  return {
    vendor: "codex",
    label: "proxy codex account",
    url: () => new URL(endpoint),
    requestHeaders(incoming, account, secret) {
      const headers = forwardedRequestHeaders(incoming, CODEX_DROPPED);
      headers.authorization = `Bearer ${secret}`;
      if (account.accountId) headers["chatgpt-account-id"] = account.accountId;
      return headers;
    },
    sessionKey: (headers) => headers[sessionHeader] || headers.session_id || undefined,
    rateLimit(incoming, body, now) {
      const { type, body: errorBody } = codexErrorType(body.toString("utf8"));
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming)) if (typeof value === "string") headers.set(name, value);
      const resetAt = usageLimitResetAt(errorBody, headers, now);
      if (type !== "usage_limit_reached" && resetAt === undefined) return undefined;
      return {
        resetAt: resetAt ?? now + DEFAULT_USAGE_LIMIT_COOLDOWN_MS,
        reason: type === "usage_limit_reached" ? "usage limit reached" : "rate limited (429)",
      };
    },
    usageScanner: () => new CodexUsageScanner(),
    errors: {
      unreachable: () => codexErrorReply(502, "upstream_unreachable", "Upstream unreachable"),
      cooling(retryAt) {
        const seconds = secondsUntil(retryAt);
        return codexErrorReply(
          429,
          "usage_limit_reached",
          `Every codex account has reached its usage limit; retry in ${seconds}s`,
          { resets_in_seconds: seconds, resets_at: Math.ceil(retryAt / 1000) },
          { "retry-after": String(seconds) },
        );
      },
      unavailable: () => codexErrorReply(503, "no_account_available", "No codex account is available"),
    },
  };
}

/** The codex relay: the shared relay loop over the codex backend's wire, answering `ProxyReply`s. */
export function createCodexRelay(options: CodexSenderOptions): Relay {
  return createRelay({ ...options, wire: codexWire(options.config) });
}

/**
 * The codex engine: each request leases a codex account (the pool's selection, stickiness and
 * in-flight cap) and comes back byte for byte, as a WHATWG `Response`.
 *
 * @example
 * const sendCodex = createCodexSender({ pool: proxy.pool, config: proxy.config });
 */
export function createCodexSender(options: CodexSenderOptions): SendCodex {
  const relay = createCodexRelay(options);
  return async (body, init) => replyToResponse(await relay(body, init));
}
