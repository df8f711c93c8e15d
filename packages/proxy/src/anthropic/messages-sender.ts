import type { AccountConfig, ProxyConfig } from "../config.js";
import type { AccountPool, Lease } from "../pool/account-pool.js";
import { RefreshRejectedError } from "../pool/oauth-refresher.js";
import type { SendMessages } from "../send-messages.js";
import { anthropicError } from "./errors.js";
import { parseRateLimitHeaders, rateLimitResetAt } from "./rate-limit-headers.js";
import { tapUsage } from "./usage-tap.js";

/** Request headers never forwarded: hop-by-hop, the client's own credential, framing. */
const DROPPED_REQUEST_HEADERS = new Set([
  "host", "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "content-length", "accept-encoding",
  "authorization", "x-api-key", "cookie", "proxy-authorization", "proxy-connection", "forwarded", "x-forwarded-for",
  "x-forwarded-host", "x-forwarded-proto", "x-real-ip", "x-request-id",
]);
/** Response headers re-made by this hop (fetch already decoded any content encoding). */
const DROPPED_RESPONSE_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"]);
const OAUTH_BETA = "oauth-2025-04-20";
/** How long an account rests after a failure that names no reset (token endpoint down...). */
const FAILURE_COOLDOWN_MS = 30_000;

type Attempt = { kind: "done"; response: Response } | { kind: "next"; response?: Response };

export interface MessagesSenderOptions {
  pool: AccountPool;
  config: Pick<ProxyConfig, "upstream" | "sessionHeader" | "maxRetries" | "retryBaseMs">;
  fetch?: typeof fetch;
  /** Called with problems worth a log line (never with secrets). */
  onWarning?: (message: string) => void;
}

/** The pool-backed `SendMessages` (see its type for the contract). */
export function createMessagesSender(options: MessagesSenderOptions): SendMessages {
  const { pool, config } = options;
  const fetchImpl = options.fetch ?? fetch;
  const warn = options.onWarning ?? (() => {});
  const endpoint = `${config.upstream.anthropic.replace(/\/+$/, "")}/v1/messages`;
  const sessionHeader = config.sessionHeader.toLowerCase();

  async function attempt(lease: Lease, body: Uint8Array, init: Parameters<SendMessages>[1]): Promise<Attempt> {
    const account = lease.account;
    let rejectedToken: string | undefined;
    for (let retry = 0; ; retry++) {
      let credential: Record<string, string>;
      try {
        credential = await credentialHeaders(account, rejectedToken);
      } catch (error) {
        lease.release();
        if (error instanceof RefreshRejectedError) await pool.disable(account.id, `OAuth refresh refused (HTTP ${error.status})`);
        else await pool.cooldown(account.id, Date.now() + FAILURE_COOLDOWN_MS, "OAuth refresh failed");
        warn(`proxy account ${account.id}: token refresh failed`);
        return { kind: "next" };
      }
      let response: Response;
      try {
        response = await fetchImpl(endpoint + (init.search ?? ""), {
          method: "POST",
          headers: { ...forwardedHeaders(init.headers, account), ...credential },
          body: body as Uint8Array<ArrayBuffer>,
          signal: init.signal,
        });
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
        return { kind: "next", response: anthropicError(502, "api_error", "Upstream unreachable") };
      }
      const now = Date.now();
      const quota = parseRateLimitHeaders(response.headers, now);
      if (quota) pool.saveQuota(account.id, quota).catch(() => warn("proxy: saving quota failed"));
      const status = response.status;
      if (status === 401 && account.type === "oauth" && rejectedToken === undefined) {
        await response.body?.cancel();
        rejectedToken = credential.authorization?.slice("Bearer ".length) ?? "";
        retry--;
        continue;
      }
      if (status === 401 || status === 403) {
        lease.release();
        await pool.disable(account.id, `upstream answered ${status}`);
        return { kind: "next", response };
      }
      if (status === 429) {
        const resetAt = rateLimitResetAt(response.headers, now);
        if (resetAt === undefined) return { kind: "done", response: passthrough(response, lease) };
        lease.release();
        await pool.cooldown(account.id, resetAt, "rate limited (429)");
        return { kind: "next", response };
      }
      if (status === 529 || status >= 500) {
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

  async function credentialHeaders(account: AccountConfig, rejectedToken: string | undefined): Promise<Record<string, string>> {
    if (account.type === "api-key") return { "x-api-key": account.apiKey };
    return { authorization: `Bearer ${await pool.oauth.accessToken(account, rejectedToken)}` };
  }

  /** Upstream's answer as is; the lease is held until its body ended, usage read on the way. */
  function passthrough(response: Response, lease: Lease): Response {
    const headers = relayedHeaders(response);
    if (!response.body) {
      lease.release();
      return new Response(null, { status: response.status, headers });
    }
    const accountId = lease.account.id;
    const body = tapUsage(
      response.body,
      response.headers.get("content-type") ?? "",
      (model, usage) => pool.recordUsage(accountId, model, usage).catch(() => warn("proxy: recording usage failed")),
      () => lease.release(),
    );
    return new Response(body, { status: response.status, headers });
  }

  return async (body, init) => {
    const sessionKey = init.headers[sessionHeader] || userIdOf(body);
    const tried = new Set<string>();
    let fallback: Response | undefined;
    for (;;) {
      const selection = await pool.acquire({ vendor: "anthropic", sessionKey, exclude: tried, signal: init.signal });
      if (selection.kind !== "lease") {
        if (selection.kind === "cooling") {
          await fallback?.body?.cancel();
          const seconds = Math.max(1, Math.ceil((selection.retryAt - Date.now()) / 1000));
          return anthropicError(429, "rate_limit_error", `Every account is rate limited; retry in ${seconds}s`, { "retry-after": String(seconds) });
        }
        return fallback ? new Response(fallback.body, { status: fallback.status, headers: relayedHeaders(fallback) }) : anthropicError(503, "overloaded_error", "No upstream account is available");
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

/** Upstream's response headers minus those this hop re-makes. */
function relayedHeaders(response: Response): Headers {
  const headers = new Headers();
  response.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name)) headers.append(name, value);
  });
  return headers;
}

/** Headers for upstream: the client's own (anthropic-version, anthropic-beta, ...) minus credentials and framing. */
function forwardedHeaders(incoming: Record<string, string>, account: AccountConfig): Record<string, string> {
  const headers: Record<string, string> = { "accept-encoding": "identity" };
  for (const [name, value] of Object.entries(incoming)) {
    const key = name.toLowerCase();
    if (!DROPPED_REQUEST_HEADERS.has(key) && !key.startsWith("x-conduit-")) headers[key] = value;
  }
  if (account.type === "oauth") {
    const betas = headers["anthropic-beta"]?.split(",").map((beta) => beta.trim()) ?? [];
    if (!betas.includes(OAUTH_BETA)) headers["anthropic-beta"] = [...betas.filter(Boolean), OAUTH_BETA].join(",");
  }
  return headers;
}

/** The request's `metadata.user_id`, read only when the bytes mention it. */
function userIdOf(body: Uint8Array): string | undefined {
  if (Buffer.from(body.buffer, body.byteOffset, body.byteLength).indexOf('"user_id"') === -1) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(body).toString("utf8")) as { metadata?: { user_id?: unknown } };
    const userId = parsed.metadata?.user_id;
    return typeof userId === "string" && userId !== "" ? userId : undefined;
  } catch {
    return undefined;
  }
}

function backoff(baseMs: number, retry: number, signal: AbortSignal): Promise<void> {
  const delay = baseMs * 2 ** retry * (0.5 + Math.random() / 2);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, delay);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
