import type { Logger } from "@conduit-ai/server-core";
import { joinUrl } from "../config/settings-reader.js";
import { ProviderAPIError } from "../errors/auth-errors.js";
import type { ReachabilityReport } from "../health/provider-availability.js";
import { requestJson } from "./http-json.js";

export interface JwksDiscoveryOptions {
  /** The configured issuer: `iss` must match it exactly. */
  issuer: string;
  /** Default `<issuer>/.well-known/openid-configuration`. */
  discoveryUrl?: string | undefined;
  timeoutMs?: number | undefined;
  onReachability?: ReachabilityReport | undefined;
  /** Told when the configured issuer differs from the document's only by a trailing slash. */
  logger?: Logger | undefined;
}

/**
 * The key set URL from the issuer's OpenID configuration (`jwks_uri`, OpenID Connect Discovery
 * 1.0 §4). An issuer the document names differently is refused, except for a trailing slash:
 * then every token would be refused silently (`iss` is compared exactly), so a `warn` line names
 * both spellings and tells which to configure.
 *
 * @example
 * const jwksUrl = await discoverJwksUrl("jwt", { issuer: "https://id.example.com" });
 */
export async function discoverJwksUrl(provider: string, options: JwksDiscoveryOptions): Promise<string> {
  const url = options.discoveryUrl ?? joinUrl(options.issuer, "/.well-known/openid-configuration");
  const { body } = await requestJson(provider, url, {
    timeoutMs: options.timeoutMs ?? 5000,
    onReachability: options.onReachability,
    headers: { accept: "application/json" },
  });
  const document = (typeof body === "object" && body !== null ? body : {}) as { issuer?: unknown; jwks_uri?: unknown };
  if (typeof document.issuer === "string" && document.issuer !== options.issuer) {
    if (document.issuer.replace(/\/+$/, "") !== options.issuer.replace(/\/+$/, ""))
      throw new ProviderAPIError(provider, "Discovery document names another issuer");
    options.logger?.warn(
      { provider, configuredIssuer: options.issuer, discoveredIssuer: document.issuer },
      `issuer "${options.issuer}" differs from the discovery document's "${document.issuer}" by a trailing slash: tokens carry the document's spelling and every one will be refused; configure issuer "${document.issuer}"`,
    );
  }
  if (typeof document.jwks_uri !== "string") throw new ProviderAPIError(provider, "Discovery document has no jwks_uri");
  try {
    return new URL(document.jwks_uri).href;
  } catch {
    throw new ProviderAPIError(provider, "Discovery document's jwks_uri is not a URL");
  }
}
