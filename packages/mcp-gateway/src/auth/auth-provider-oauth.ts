import { importOptionalDependency } from "@conduit-ai/server-core";
import { McpGatewayConfigError } from "../errors.js";
import type { OAuthResource } from "./oauth-resource.js";
import { TokenExchanger } from "./token-exchange.js";

/** An `auth.providers` entry: an `@conduit-ai/auth-providers` config (`{ "type": "jwt" | "oidc" | …, ... }`). */
export type AuthProviderSettings = { type: string; issuer?: string; audience?: string | string[]; [setting: string]: unknown };

/** Provider types that verify tokens by signature alone (no client settings of their own). */
const JWT_TYPES = new Set(["jwt", "jwks"]);

function loadAuthProviders() {
  return importOptionalDependency("@conduit-ai/auth-providers", () => import("@conduit-ai/auth-providers"), {
    feature: "the MCP gateway's OAuth (mcpGateway.oauth)",
  });
}

/**
 * The endpoint as an OAuth protected resource whose tokens `settings` (an `auth.providers` entry,
 * e.g. `{ "type": "jwt", "issuer": "https://id.example.com" }` or an `oidc` introspection provider)
 * validates with `@conduit-ai/auth-providers` — its audience the endpoint's URL (RFC 8707) unless
 * the entry names one. The issuer is the authorization server the metadata names.
 *
 * @example
 * const oauth = await oauthFromAuthProvider("corp", { type: "jwt", issuer: "https://id.example.com" }, "https://gw.example.com/mcp");
 */
export async function oauthFromAuthProvider(
  name: string,
  settings: AuthProviderSettings,
  resource: string,
  scopes?: string[],
): Promise<OAuthResource> {
  if (typeof settings.issuer !== "string")
    throw new McpGatewayConfigError(
      `auth.providers.${name}.issuer is required: it is the authorization server MCP clients are sent to`,
      `auth.providers.${name}.issuer`,
    );
  const providers = await loadAuthProviders();
  const { clientId: _id, clientSecret: _secret, tokenUrl: _url, ...verifying } = settings;
  // A JWT verifier has no client: its entry's client settings serve the token exchange only.
  const own = JWT_TYPES.has(settings.type) ? verifying : settings;
  const provider = providers.createAuthProvider({ ...own, audience: settings.audience ?? resource } as never, { sessions: false });
  await provider.initialize?.();
  return {
    resource,
    authorizationServers: [settings.issuer],
    ...(scopes ? { scopes } : {}),
    async validateToken(token) {
      const result = await provider.authenticateToken(token);
      if (result.valid) return { subject: result.user.id, ...(result.expiresAt ? { expiresAt: result.expiresAt } : {}) };
      // The identity provider out of reach is not a wrong token: the caller gets 503, not 401.
      if (result.error.statusCode >= 500) throw result.error;
      return undefined;
    },
  };
}

/**
 * RFC 8693 token exchange at an `auth.providers` entry's token endpoint (`tokenUrl`, or its
 * issuer's OpenID configuration), as the confidential client `clientId`/`clientSecret`.
 *
 * @example
 * const exchanger = exchangerFromAuthProvider("corp", { type: "oidc", issuer, clientId: "conduit", clientSecret });
 */
export function exchangerFromAuthProvider(name: string, settings: AuthProviderSettings): TokenExchanger {
  const { clientId, clientSecret, tokenUrl, issuer } = settings;
  if (typeof clientId !== "string" || typeof clientSecret !== "string")
    throw new McpGatewayConfigError(`auth.providers.${name}: token exchange needs clientId and clientSecret`, `auth.providers.${name}`);
  if (typeof tokenUrl !== "string" && typeof issuer !== "string")
    throw new McpGatewayConfigError(`auth.providers.${name}: token exchange needs tokenUrl or issuer`, `auth.providers.${name}`);
  return new TokenExchanger({
    clientId,
    clientSecret,
    ...(typeof tokenUrl === "string" ? { tokenEndpoint: tokenUrl } : {}),
    ...(typeof issuer === "string" ? { issuer } : {}),
  });
}
