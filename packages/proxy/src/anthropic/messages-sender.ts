import type { AccountConfig, ProxyConfig } from "../config.js";
import type { AccountPool, Lease } from "../pool/account-pool.js";
import { retireAfterRefreshFailure } from "../pool/oauth-refresher.js";
import type { SendMessages } from "../send-messages.js";
import { type ProxyReply, anthropicErrorReply } from "./proxy-reply.js";
import { parseRateLimitHeaders, rateLimitResetAt } from "./rate-limit-headers.js";
import { UpstreamClient, type UpstreamReply } from "./upstream-client.js";
import { jsonUsage, tapUsage } from "./usage-tap.js";
import { backoff, forwardedHeaders, relayedHeaders, userIdOf } from "./wire.js";

type Attempt = { kind: "done"; reply: ProxyReply } | { kind: "next"; reply?: ProxyReply };

/** `SendMessages` whose answer is a `ProxyReply` (the route serves it without a WHATWG detour). */
export type RelayMessages = (body: Uint8Array, init: Parameters<SendMessages>[1]) => Promise<ProxyReply>;

export interface MessagesSenderOptions {
  pool: AccountPool;
  config: Pick<ProxyConfig, "upstream" | "sessionHeader" | "maxRetries" | "retryBaseMs">;
  upstream?: UpstreamClient;
  /** Called with problems worth a log line (never with secrets). */
  onWarning?: (message: string) => void;
}

/**
 * The pool-backed Messages relay: account choice (sticky, strategy, in-flight cap), OAuth
 * tokens, quota and usage, cooldown on 429 with a reset, bounded retries on 529/5xx,
 * disabling on 401/403, failover to the next account.
 */
export function createMessagesRelay(options: MessagesSenderOptions): RelayMessages {
  const { pool, config } = options;
  const upstream = options.upstream ?? new UpstreamClient();
  const warn = options.onWarning ?? (() => {});
  const endpoint = `${config.upstream.anthropic.replace(/\/+$/, "")}/v1/messages`;
  const sessionHeader = config.sessionHeader.toLowerCase();

  async function attempt(lease: Lease, body: Uint8Array, init: Parameters<SendMessages>[1]): Promise<Attempt> {
    const account = lease.account;
    const url = new URL(endpoint + (init.search ?? ""));
    let rejectedToken: string | undefined;
    for (let retry = 0; ; retry++) {
      let credential: Record<string, string>;
      try {
        credential = await credentialHeaders(account, rejectedToken);
      } catch (error) {
        lease.release();
        await retireAfterRefreshFailure(pool, account.id, error);
        warn(`proxy account ${account.id}: token refresh failed`);
        return { kind: "next" };
      }
      let response: UpstreamReply;
      try {
        response = await upstream.post(url, { ...forwardedHeaders(init.headers, account), ...credential }, body, init.signal);
      } catch (error) {
        if (init.signal.aborted) {
          lease.release();
          throw error;
        }
        if (retry < config.maxRetries) {
          await backoff(config.retryBaseMs, retry, init.signal);
          continue;
        }
        lease.release();
        warn(`proxy account ${account.id}: upstream unreachable`);
        return { kind: "next", reply: anthropicErrorReply(502, "api_error", "Upstream unreachable") };
      }
      const now = Date.now();
      const quota = parseRateLimitHeaders(response.headers, now);
      if (quota) pool.saveQuota(account.id, quota).catch(() => warn("proxy: saving quota failed"));
      const status = response.status;
      if (status === 401 && account.type === "oauth" && rejectedToken === undefined) {
        response.body.resume();
        rejectedToken = credential.authorization?.slice("Bearer ".length) ?? "";
        retry--;
        continue;
      }
      if (status === 401 || status === 403) {
        lease.release();
        await pool.disable(account.id, `upstream answered ${status}`);
        return { kind: "next", reply: await buffered(response) };
      }
      if (status === 429) {
        const resetAt = rateLimitResetAt(response.headers, now);
        if (resetAt === undefined) return { kind: "done", reply: await passthrough(response, lease) };
        lease.release();
        await pool.cooldown(account.id, resetAt, "rate limited (429)");
        return { kind: "next", reply: await buffered(response) };
      }
      if (status === 529 || status >= 500) {
        if (retry < config.maxRetries) {
          response.body.resume();
          await backoff(config.retryBaseMs, retry, init.signal);
          continue;
        }
        lease.release();
        return { kind: "next", reply: await buffered(response) };
      }
      return { kind: "done", reply: await passthrough(response, lease) };
    }
  }

  async function credentialHeaders(account: AccountConfig, rejectedToken: string | undefined): Promise<Record<string, string>> {
    if (account.type === "api-key") return { "x-api-key": account.apiKey };
    return { authorization: `Bearer ${await pool.oauth.accessToken(account, rejectedToken)}` };
  }

  /**
   * Upstream's answer as is; the lease is held until its body ended, usage read on the way.
   * A small JSON answer of known length is read whole first (same bytes): it then leaves in one
   * write with its length instead of a chunked stream. Streams are always piped.
   */
  async function passthrough(response: UpstreamReply, lease: Lease): Promise<ProxyReply> {
    const accountId = lease.account.id;
    const contentType = response.headers["content-type"] ?? "";
    const length = Number(response.headers["content-length"]);
    if (contentType.startsWith("application/json") && Number.isInteger(length) && length <= WHOLE_JSON_LIMIT) {
      try {
        const bytes = await readWhole(response);
        const usage = jsonUsage(bytes);
        if (usage) pool.recordUsage(accountId, usage.model, usage.usage).catch(() => warn("proxy: recording usage failed"));
        return { status: response.status, headers: relayedHeaders(response.headers), body: bytes };
      } finally {
        lease.release();
      }
    }
    const body = tapUsage(
      response.body,
      contentType,
      (model, usage) => pool.recordUsage(accountId, model, usage).catch(() => warn("proxy: recording usage failed")),
      () => lease.release(),
    );
    return { status: response.status, headers: relayedHeaders(response.headers), body };
  }

  return async (body, init) => {
    const sessionKey = init.headers[sessionHeader] || userIdOf(body);
    const tried = new Set<string>();
    let fallback: ProxyReply | undefined;
    for (;;) {
      const selection = await pool.acquire({ vendor: "anthropic", sessionKey, exclude: tried, signal: init.signal });
      if (selection.kind !== "lease") {
        if (selection.kind === "cooling") {
          const seconds = Math.max(1, Math.ceil((selection.retryAt - Date.now()) / 1000));
          return anthropicErrorReply(429, "rate_limit_error", `Every account is rate limited; retry in ${seconds}s`, {
            "retry-after": String(seconds),
          });
        }
        return fallback ?? anthropicErrorReply(503, "overloaded_error", "No upstream account is available");
      }
      tried.add(selection.lease.account.id);
      const outcome = await attempt(selection.lease, body, init);
      if (outcome.kind === "done") return outcome.reply;
      if (outcome.reply) fallback = outcome.reply;
    }
  };
}

/** JSON answers up to this size (with a content-length) are read whole before they are sent on. */
const WHOLE_JSON_LIMIT = 1024 * 1024;

async function readWhole(response: UpstreamReply): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response.body) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** An error answer read whole (they are small), so it can be kept while the next account is tried. */
async function buffered(response: UpstreamReply): Promise<ProxyReply> {
  return { status: response.status, headers: relayedHeaders(response.headers), body: await readWhole(response) };
}
