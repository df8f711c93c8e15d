import type { IncomingMessage } from "node:http";
import { type ServerAdapterError, type ServerContext, type TrustProxyConfig, wrapError } from "@conduit-ai/server-core";
import { type RateLimiter, setRateLimitHeaders } from "@conduit-ai/server-core/internal";
import { upgradeContext } from "@conduit-ai/server-core/node";
import type { WebSocketUser } from "./websocket-config.js";
import { toAuthenticatedUser } from "./websocket-user.js";

/** Message types that start work and so spend the client's budget (the standard agent handler's). */
export const DEFAULT_RATE_LIMITED_TYPES = ["generate", "stream", "tool_call"] as const;

/** The answer of the gate: pass, or the error to send (429 over budget, 503 store down when closed). */
export type GateResult = { allowed: true } | { allowed: false; error: ServerAdapterError; headers: Record<string, string> };

/**
 * Spends the HTTP rate limiter's budget on the WebSocket surface: the upgrade counts as one
 * request and so does every message that starts work — same limiter, same store, same key
 * function as HTTP, so a client cannot trade one surface for the other.
 */
export class RateLimitGate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limitedTypes: ReadonlySet<string>,
    /** The server's `trustProxy`, so a client behind a proxy is keyed as HTTP keys it. */
    private readonly trustProxy?: TrustProxyConfig,
  ) {}

  counts(type: string): boolean {
    return this.limitedTypes.has(type);
  }

  /** The upgrade request (before authentication, as on HTTP, so credential guessing is limited too). */
  upgrade(request: IncomingMessage): Promise<GateResult> {
    const context = upgradeContext(request, undefined, this.trustProxy);
    if (this.limiter.skips(context)) return Promise.resolve({ allowed: true });
    return this.consume(context);
  }

  /** A message from an accepted connection, keyed as its upgrade was (address, headers, user). */
  message(request: IncomingMessage, user: WebSocketUser | undefined): Promise<GateResult> {
    return this.consume(upgradeContext(request, user ? toAuthenticatedUser(user) : undefined, this.trustProxy));
  }

  private async consume(context: ServerContext): Promise<GateResult> {
    try {
      const outcome = await this.limiter.consume(context);
      if (!outcome.info) return { allowed: true };
      setRateLimitHeaders(context, outcome.info);
      if (outcome.allowed) return { allowed: true };
      await this.limiter.reject(context, outcome.info);
      return { allowed: true };
    } catch (error) {
      const wrapped = wrapError(error);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(context.response.headers)) if (typeof value === "string") headers[name] = value;
      return { allowed: false, error: wrapped, headers };
    }
  }
}
