import type { AccountConfig, ProxyConfig } from "../config.js";
import type { AccountPool, Lease } from "../pool/account-pool.js";
import { retireAfterRefreshFailure } from "../pool/oauth-refresher.js";
import { backoff } from "./backoff.js";
import { type TapOutcome, readBounded, readUpTo, rejoin, tapBody } from "./body-tap.js";
import { relayedHeaders } from "./headers.js";
import type { ProxyReply } from "./proxy-reply.js";
import { RelayTrace } from "./relay-trace.js";
import { UpstreamClient, type UpstreamReply } from "./transport.js";
import type { RelayRequest, VendorWire } from "./vendor-wire.js";

/** Sends one request (raw bytes) through the pool and answers upstream's reply or the vendor's error. */
export type Relay = (body: Uint8Array, request: RelayRequest) => Promise<ProxyReply>;

export interface RelayOptions {
  pool: AccountPool;
  config: Pick<ProxyConfig, "maxRetries" | "retryBaseMs">;
  wire: VendorWire;
  upstream?: UpstreamClient;
  /** Called with problems worth a log line (never with secrets). */
  onWarning?: (message: string) => void;
}

type Attempt = { kind: "done"; reply: ProxyReply; passedThrough?: true } | { kind: "next"; reply?: ProxyReply };

/** JSON answers up to this size (with a content-length) are read whole before they are sent on. */
const WHOLE_JSON_LIMIT = 1024 * 1024;

/**
 * The one relay loop every vendor sender runs: per account, credential → send → one token
 * refresh on 401 (OAuth) → disable on 401/403 → cooldown on a 429 naming its reset → bounded
 * retries with backoff on 5xx/529 and unreachable → the next account (the pool's selection,
 * stickiness and in-flight cap). The lease is held until the answer's body ended.
 *
 * @example
 * const relay = createRelay({ pool, config, wire: messagesWire(config) });
 */
export function createRelay(options: RelayOptions): Relay {
  const { pool, config, wire } = options;
  const upstream = options.upstream ?? new UpstreamClient();
  const warn = options.onWarning ?? (() => {});

  /** An API key is at hand (no promise); an OAuth token may need a refresh. */
  function secretOf(account: AccountConfig, rejected: string | undefined): string | Promise<string> {
    return account.type === "api-key" ? account.apiKey : pool.oauth.accessToken(account, rejected);
  }

  async function attempt(lease: Lease, body: Uint8Array, request: RelayRequest, trace: RelayTrace | undefined): Promise<Attempt> {
    const account = lease.account;
    const url = wire.url(request.search);
    let rejected: string | undefined;
    for (let retry = 0; ; retry++) {
      let secret: string;
      try {
        const pending = secretOf(account, rejected);
        secret = typeof pending === "string" ? pending : await pending;
      } catch (error) {
        lease.release();
        await retireAfterRefreshFailure(pool, account.id, error);
        warn(`${wire.label} ${account.id}: token refresh failed`);
        trace?.leaving("token_refresh_failed");
        return { kind: "next" };
      }
      let response: UpstreamReply;
      const sent = trace?.attempt(account, url);
      try {
        const headers = wire.requestHeaders(request.headers, account, secret);
        response = await upstream.post(url, sent ? { ...headers, ...sent.headers } : headers, body, request.signal);
      } catch (error) {
        sent?.failed(error);
        sent?.end();
        if (request.signal.aborted) {
          lease.release();
          throw error;
        }
        if (retry < config.maxRetries) {
          trace?.retry(account, retry, "unreachable");
          await backoff(config.retryBaseMs, retry, request.signal);
          continue;
        }
        lease.release();
        warn(`${wire.label} ${account.id}: upstream unreachable`);
        trace?.leaving("unreachable");
        return { kind: "next", reply: wire.errors.unreachable() };
      }
      sent?.answered(response.status);
      const now = Date.now();
      const quota = wire.quota?.(response.headers, now);
      if (quota) pool.saveQuota(account.id, quota).catch(() => warn("proxy: saving quota failed"));
      const status = response.status;
      if (status === 401 && account.type === "oauth" && rejected === undefined) {
        sent?.end();
        response.body.resume();
        rejected = secret;
        retry--;
        continue;
      }
      if (status === 401 || status === 403) {
        lease.release();
        await pool.disable(account.id, `upstream answered ${status}`);
        trace?.leaving(`disabled_${status}`);
        return { kind: "next", reply: await buffered(response, sent) };
      }
      if (status === 429) {
        const reply = await buffered(response, sent);
        lease.release();
        const verdict = wire.rateLimit(response.headers, reply.body as Buffer, now);
        if (verdict === undefined) return { kind: "done", reply };
        await pool.cooldown(account.id, verdict.resetAt, verdict.reason);
        trace?.cooldown(account, verdict.resetAt, verdict.reason);
        trace?.leaving("rate_limited");
        return { kind: "next", reply };
      }
      if (status === 529 || status >= 500) {
        if (retry < config.maxRetries) {
          sent?.end();
          response.body.resume();
          trace?.retry(account, retry, status);
          await backoff(config.retryBaseMs, retry, request.signal);
          continue;
        }
        lease.release();
        trace?.leaving(`upstream_${status}`);
        return { kind: "next", reply: await buffered(response, sent) };
      }
      return { kind: "done", reply: await passthrough(response, lease, request, trace, sent), passedThrough: true };
    }
  }

  /**
   * Upstream's answer as is; the lease is held until its body ended, usage read on the way.
   * A JSON answer is read whole first when it ends within 1 MiB, chunked or not (same bytes): it
   * then leaves in one write with its length instead of a chunked stream of three writes. A longer
   * one, and every event stream, is piped.
   */
  async function passthrough(
    response: UpstreamReply,
    lease: Lease,
    request: RelayRequest,
    trace?: RelayTrace,
    sent?: { end(): void },
  ): Promise<ProxyReply> {
    const accountId = lease.account.id;
    const contentType = response.headers["content-type"] ?? "";
    const scanner = wire.usageScanner(contentType);
    // Spans of a passed-through answer end with its body (a stream: when the stream ends).
    trace?.deferToBody();
    const ended = (outcome: TapOutcome) => {
      lease.release();
      sent?.end();
      trace?.bodyEnded(response.status, outcome);
      // A cut stream counts what upstream reported before it: the figures governance charges.
      const usage = outcome.usage;
      if (usage) pool.recordUsage(accountId, usage.model, usage.usage).catch(() => warn("proxy: recording usage failed"));
      request.onAnswered?.(response.status, outcome);
    };
    const length = Number(response.headers["content-length"]);
    let body: AsyncIterable<Uint8Array> & { destroy?: () => void } = response.body;
    if (contentType.startsWith("application/json") && !(length > WHOLE_JSON_LIMIT)) {
      let read: Awaited<ReturnType<typeof readUpTo>>;
      try {
        read = await readUpTo(response.body, WHOLE_JSON_LIMIT);
      } catch (error) {
        ended({ completed: false, usage: scanner.finish() });
        throw error;
      }
      if ("whole" in read) {
        scanner.push(read.whole);
        ended({ completed: true, usage: scanner.finish() });
        const parsedBody = scanner.parsedBody?.();
        return {
          status: response.status,
          headers: relayedHeaders(response.headers),
          body: read.whole,
          ...(parsedBody ? { parsedBody } : {}),
        };
      }
      body = rejoin(read);
    }
    const reply: ProxyReply = { status: response.status, headers: relayedHeaders(response.headers), body: tapBody(body, scanner, ended) };
    if (scanner.takeEvents) reply.usageEvents = (unfinished) => scanner.takeEvents?.(unfinished);
    return reply;
  }

  /** The final answer; one that did not pass through the tap (an error, read whole) is reported here. */
  function answer(reply: ProxyReply, request: RelayRequest): ProxyReply {
    request.onAnswered?.(reply.status, { completed: true, usage: undefined });
    return reply;
  }

  return async (body, request) => {
    const trace = RelayTrace.start(wire, body, request.traceSpan);
    if (trace === undefined) return relayCall(body, request, undefined);
    try {
      const reply = await relayCall(body, request, trace);
      trace.settled(reply.status);
      return reply;
    } catch (error) {
      trace.failed(error);
      throw error;
    }
  };

  async function relayCall(body: Uint8Array, request: RelayRequest, trace: RelayTrace | undefined): Promise<ProxyReply> {
    const sessionKey = wire.sessionKey(request.headers, body, request.sessionKey);
    const tried = new Set<string>();
    let fallback: ProxyReply | undefined;
    for (;;) {
      const selection = await pool.acquire({ vendor: wire.vendor, sessionKey, exclude: tried, signal: request.signal });
      if (selection.kind !== "lease") {
        if (selection.kind === "cooling") return answer(wire.errors.cooling(selection.retryAt), request);
        return answer(fallback ?? wire.errors.unavailable(), request);
      }
      if (trace && tried.size > 0) trace.failover([...tried].at(-1) as string, selection.lease.account);
      tried.add(selection.lease.account.id);
      const outcome = await attempt(selection.lease, body, request, trace);
      if (outcome.kind === "done") return outcome.passedThrough ? outcome.reply : answer(outcome.reply, request);
      if (outcome.reply) fallback = outcome.reply;
    }
  }
}

/** An error answer read whole (they are small), so it can be kept while the next account is tried. */
async function buffered(response: UpstreamReply, sent?: { end(): void }): Promise<ProxyReply> {
  try {
    return { status: response.status, headers: relayedHeaders(response.headers), body: await readBounded(response.body) };
  } finally {
    sent?.end();
  }
}

/** Seconds until `at` (epoch ms), at least 1: the `retry-after` of an answer naming a reset. */
export function secondsUntil(at: number): number {
  return Math.max(1, Math.ceil((at - Date.now()) / 1000));
}
