import { backoff } from "../anthropic/wire.js";
import type { AccountConfig, ProxyConfig } from "../config.js";
import { boundedText } from "../openai/bounded-text.js";
import type { AccountPool, Lease } from "../pool/account-pool.js";
import { retireAfterRefreshFailure } from "../pool/oauth-refresher.js";
import { tapCodexBody } from "./codex-body.js";
import { DEFAULT_USAGE_LIMIT_COOLDOWN_MS, codexError, codexErrorType, usageLimitResetAt } from "./usage-limit.js";

/** Sends one codex Responses request (raw bytes) through the pool of codex accounts. */
export type SendCodex = (body: Uint8Array, init: { headers: Record<string, string>; signal: AbortSignal }) => Promise<Response>;

/** Request headers never forwarded: hop-by-hop, the client's credential and account, framing. */
const DROPPED_REQUEST_HEADERS = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "upgrade",
  "content-length",
  "accept-encoding",
  "authorization",
  "x-api-key",
  "cookie",
  "proxy-authorization",
  "proxy-connection",
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-real-ip",
  "x-request-id",
  "chatgpt-account-id",
]);
const DROPPED_RESPONSE_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"]);
export interface CodexSenderOptions {
  pool: AccountPool;
  config: Pick<ProxyConfig, "upstream" | "sessionHeader" | "maxRetries" | "retryBaseMs">;
  fetch?: typeof fetch;
  onWarning?: (message: string) => void;
}

type Attempt = { kind: "done"; response: Response } | { kind: "next"; response?: Response };

/**
 * The codex engine: each request leases a codex account (the pool's selection, stickiness and
 * in-flight cap), goes to `{upstream.codex}/backend-api/codex/responses` with the account's bearer
 * token and `chatgpt-account-id`, and comes back byte for byte. `usage_limit_reached` cools the
 * account until its reset and the request moves to the next account; 401/403 disables it (after
 * one token refresh for OAuth accounts); 5xx retries with backoff, then moves on.
 *
 * @example
 * const sendCodex = createCodexSender({ pool: proxy.pool, config: proxy.config });
 */
export function createCodexSender(options: CodexSenderOptions): SendCodex {
  const { pool, config } = options;
  const fetchImpl = options.fetch ?? fetch;
  const warn = options.onWarning ?? (() => {});
  const endpoint = `${config.upstream.codex.replace(/\/+$/, "")}/backend-api/codex/responses`;
  const sessionHeader = config.sessionHeader.toLowerCase();

  async function token(account: AccountConfig, rejected: string | undefined): Promise<string> {
    return account.type === "api-key" ? account.apiKey : pool.oauth.accessToken(account, rejected);
  }

  async function attempt(lease: Lease, body: Uint8Array, init: Parameters<SendCodex>[1]): Promise<Attempt> {
    const account = lease.account;
    let rejected: string | undefined;
    for (let retry = 0; ; retry++) {
      let bearer: string;
      try {
        bearer = await token(account, rejected);
      } catch (error) {
        lease.release();
        await retireAfterRefreshFailure(pool, account.id, error);
        warn(`proxy codex account ${account.id}: token refresh failed`);
        return { kind: "next" };
      }
      let response: Response;
      try {
        const headers = {
          ...forwarded(init.headers),
          authorization: `Bearer ${bearer}`,
          ...(account.accountId ? { "chatgpt-account-id": account.accountId } : {}),
        };
        response = await fetchImpl(endpoint, { method: "POST", headers, body: body as Uint8Array<ArrayBuffer>, signal: init.signal });
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
        warn(`proxy codex account ${account.id}: upstream unreachable`);
        return { kind: "next", response: codexError(502, "upstream_unreachable", "Upstream unreachable") };
      }
      const status = response.status;
      if (status === 401 && account.type === "oauth" && rejected === undefined) {
        await response.body?.cancel();
        rejected = bearer;
        retry--;
        continue;
      }
      if (status === 401 || status === 403) {
        lease.release();
        await pool.disable(account.id, `upstream answered ${status}`);
        return { kind: "next", response };
      }
      if (status === 429) {
        const text = await boundedText(response);
        const { type, body: errorBody } = codexErrorType(text);
        const now = Date.now();
        const resetAt = usageLimitResetAt(errorBody, response.headers, now);
        const copy = new Response(text, { status, headers: withoutFraming(response.headers) });
        if (type === "usage_limit_reached" || resetAt !== undefined) {
          lease.release();
          await pool.cooldown(
            account.id,
            resetAt ?? now + DEFAULT_USAGE_LIMIT_COOLDOWN_MS,
            type === "usage_limit_reached" ? "usage limit reached" : "rate limited (429)",
          );
          return { kind: "next", response: copy };
        }
        lease.release();
        return { kind: "done", response: copy };
      }
      if (status >= 500) {
        if (retry < config.maxRetries) {
          await response.body?.cancel();
          await backoff(config.retryBaseMs, retry, init.signal);
          continue;
        }
        lease.release();
        return { kind: "next", response };
      }
      return { kind: "done", response: passthrough(response, lease) };
    }
  }

  function passthrough(response: Response, lease: Lease): Response {
    const headers = withoutFraming(response.headers);
    if (!response.body) {
      lease.release();
      return new Response(null, { status: response.status, headers });
    }
    const accountId = lease.account.id;
    const body = tapCodexBody(
      response.body,
      (model, usage) => pool.recordUsage(accountId, model, usage).catch(() => warn("proxy: recording codex usage failed")),
      () => lease.release(),
    );
    return new Response(body, { status: response.status, headers });
  }

  return async (body, init) => {
    const sessionKey = init.headers[sessionHeader] || init.headers.session_id || undefined;
    const tried = new Set<string>();
    let fallback: Response | undefined;
    for (;;) {
      const selection = await pool.acquire({ vendor: "codex", sessionKey, exclude: tried, signal: init.signal });
      if (selection.kind !== "lease") {
        if (selection.kind === "cooling") {
          await fallback?.body?.cancel();
          const seconds = Math.max(1, Math.ceil((selection.retryAt - Date.now()) / 1000));
          return codexError(
            429,
            "usage_limit_reached",
            `Every codex account has reached its usage limit; retry in ${seconds}s`,
            { resets_in_seconds: seconds, resets_at: Math.ceil(selection.retryAt / 1000) },
            { "retry-after": String(seconds) },
          );
        }
        return fallback ?? codexError(503, "no_account_available", "No codex account is available");
      }
      tried.add(selection.lease.account.id);
      const outcome = await attempt(selection.lease, body, init);
      if (outcome.kind === "done") {
        await fallback?.body?.cancel();
        return outcome.response;
      }
      if (outcome.response) {
        await fallback?.body?.cancel();
        fallback = outcome.response;
      }
    }
  };
}

function forwarded(incoming: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = { "accept-encoding": "identity" };
  for (const [name, value] of Object.entries(incoming)) {
    const key = name.toLowerCase();
    if (!DROPPED_REQUEST_HEADERS.has(key) && !key.startsWith("x-conduit-")) headers[key] = value;
  }
  return headers;
}

function withoutFraming(source: Headers): Headers {
  const headers = new Headers();
  source.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name)) headers.append(name, value);
  });
  return headers;
}
