import { createHash } from "node:crypto";
import { BoundedCache } from "@conduit-ai/server-core/internal";

export interface TokenExchangerOptions {
  /** The authorization server's token endpoint; or `issuer`, whose OpenID configuration names it. */
  tokenEndpoint?: string;
  issuer?: string;
  clientId: string;
  clientSecret: string;
  /** Per request to the authorization server. Default 5000. */
  timeoutMs?: number;
}

const GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token";

/**
 * RFC 8693 token exchange at one authorization server, as a confidential client (HTTP Basic):
 * the caller's access token in, a token for an upstream's `audience` out — cached per caller
 * token and audience until 30 s before it expires, so a session's calls cost one exchange.
 * Cached by the token's digest, never the token.
 *
 * @example
 * const exchanger = new TokenExchanger({ issuer: "https://id.example.com", clientId: "conduit", clientSecret });
 * const token = await exchanger.exchange(callerToken, "https://mcp.github.example.com");
 */
export class TokenExchanger {
  readonly #options: TokenExchangerOptions;
  readonly #cache = new BoundedCache<string>({ maxEntries: 10_000 });
  #endpoint: Promise<string> | undefined;

  constructor(options: TokenExchangerOptions) {
    if (!options.tokenEndpoint && !options.issuer) throw new Error("token exchange needs a tokenEndpoint or an issuer");
    this.#options = options;
  }

  #tokenEndpoint(): Promise<string> {
    if (this.#options.tokenEndpoint) return Promise.resolve(this.#options.tokenEndpoint);
    this.#endpoint ??= (async () => {
      const issuer = (this.#options.issuer as string).replace(/\/+$/, "");
      const response = await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(this.#timeoutMs) });
      const document = (await response.json()) as { token_endpoint?: unknown };
      if (!response.ok || typeof document.token_endpoint !== "string")
        throw new Error(`no token_endpoint in ${issuer}'s OpenID configuration`);
      return document.token_endpoint;
    })().catch((error: unknown) => {
      this.#endpoint = undefined;
      throw error;
    });
    return this.#endpoint;
  }

  get #timeoutMs(): number {
    return this.#options.timeoutMs ?? 5_000;
  }

  async exchange(subjectToken: string, audience: string, scope?: string): Promise<string> {
    const cacheKey = `${createHash("sha256").update(subjectToken).digest("base64url")}\n${audience}\n${scope ?? ""}`;
    const cached = this.#cache.get(cacheKey);
    if (cached) return cached;
    const form = new URLSearchParams({
      grant_type: GRANT,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN,
      requested_token_type: ACCESS_TOKEN,
      audience,
      ...(scope ? { scope } : {}),
    });
    const basic = Buffer.from(`${encodeURIComponent(this.#options.clientId)}:${encodeURIComponent(this.#options.clientSecret)}`).toString(
      "base64",
    );
    const response = await fetch(await this.#tokenEndpoint(), {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
    const answer = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
    if (!response.ok || typeof answer.access_token !== "string")
      throw new Error(`HTTP ${response.status}${typeof answer.error === "string" ? ` ${answer.error}` : ""}`);
    const expiresIn = typeof answer.expires_in === "number" ? answer.expires_in : 300;
    const ttlMs = (expiresIn - 30) * 1000;
    if (ttlMs > 0) this.#cache.set(cacheKey, answer.access_token, { ttlMs });
    return answer.access_token;
  }
}
