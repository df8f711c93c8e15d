import type { ProxyConfig } from "../../config.js";
import type { AccountPool } from "../../pool/account-pool.js";
import type { ProxyReply } from "../../relay/proxy-reply.js";
import { createRelay, secondsUntil } from "../../relay/relay.js";
import type { UpstreamClient } from "../../relay/transport.js";
import type { RelayRequest, VendorWire } from "../../relay/vendor-wire.js";
import { anthropicErrorReply } from "../../wire/anthropic-messages/errors.js";
import { parseRateLimitHeaders, rateLimitResetAt } from "../../wire/anthropic-messages/rate-limit-headers.js";
import { messagesUsageScanner } from "../../wire/anthropic-messages/usage-tap.js";
import { messagesRequestHeaders, userIdOf } from "../../wire/anthropic-messages/request-headers.js";

/** `SendMessages` whose answer is a `ProxyReply` (the route serves it without a WHATWG detour). */
export type RelayMessages = (body: Uint8Array, init: RelayRequest) => Promise<ProxyReply>;

export interface MessagesSenderOptions {
  pool: AccountPool;
  config: Pick<ProxyConfig, "upstream" | "sessionHeader" | "maxRetries" | "retryBaseMs">;
  upstream?: UpstreamClient;
  /** Called with problems worth a log line (never with secrets). */
  onWarning?: (message: string) => void;
}

/**
 * The Messages API's wire: `{upstream.anthropic}/v1/messages` (the client's query kept), the
 * account's `x-api-key` or OAuth bearer, quota from the `anthropic-ratelimit-*` headers, a 429
 * cooling its account only when the headers name a reset.
 */
export function messagesWire(config: Pick<ProxyConfig, "upstream" | "sessionHeader">, path = "/v1/messages"): VendorWire {
  const endpoint = `${config.upstream.anthropic.replace(/\/+$/, "")}${path}`;
  const sessionHeader = config.sessionHeader.toLowerCase();
  // Parsed once: most requests carry no query (the URL is only read, never changed).
  const plain = new URL(endpoint);
  return {
    vendor: "anthropic",
    label: "proxy account",
    url: (search) => (search ? new URL(endpoint + search) : plain),
    requestHeaders: messagesRequestHeaders,
    // The session header, else a translated request's `prompt_cache_key`, else `metadata.user_id`.
    sessionKey: (headers, body, named) => headers[sessionHeader] || named || userIdOf(body),
    quota: parseRateLimitHeaders,
    rateLimit(headers, _body, now) {
      const resetAt = rateLimitResetAt(headers, now);
      return resetAt === undefined ? undefined : { resetAt, reason: "rate limited (429)" };
    },
    usageScanner: messagesUsageScanner,
    errors: {
      unreachable: () => anthropicErrorReply(502, "api_error", "Upstream unreachable"),
      cooling(retryAt) {
        const seconds = secondsUntil(retryAt);
        return anthropicErrorReply(429, "rate_limit_error", `Every account is rate limited; retry in ${seconds}s`, {
          "retry-after": String(seconds),
        });
      },
      unavailable: () => anthropicErrorReply(503, "overloaded_error", "No upstream account is available"),
    },
  };
}

/**
 * The pool-backed Messages relay: the shared relay loop over the Messages API's wire.
 *
 * @example
 * const relayMessages = createMessagesRelay({ pool, config });
 * const reply = await relayMessages(body, { headers, signal });
 */
export function createMessagesRelay(options: MessagesSenderOptions): RelayMessages {
  return createRelay({ ...options, wire: messagesWire(options.config) });
}
