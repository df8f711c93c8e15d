/** A subject an OAuth access token was validated for. */
export interface OAuthSubject {
  subject: string;
  /** Epoch ms when the token expires. */
  expiresAt?: number | undefined;
}

/**
 * OAuth 2.1 as the MCP authorization spec asks: this endpoint is a protected resource (RFC 9728)
 * whose tokens an authorization server issues for its URL as audience (RFC 8707).
 */
export interface OAuthResource {
  /** The endpoint's public URL, the tokens' audience (`https://gateway.example.com/mcp`). */
  resource: string;
  /** Issuers of the tokens (the `auth.providers` entry's issuer). */
  authorizationServers: string[];
  scopes?: string[] | undefined;
  /** The subject of a valid token for this resource (audience checked), undefined for any other; throws while the issuer cannot be reached. */
  validateToken(token: string): Promise<OAuthSubject | undefined>;
}

/** Where the protected-resource metadata of `resource` is served (RFC 9728 §3.1: the path after the well-known name). */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

/** The RFC 9728 document. */
export function protectedResourceMetadata(oauth: OAuthResource): Record<string, unknown> {
  return {
    resource: oauth.resource,
    authorization_servers: oauth.authorizationServers,
    bearer_methods_supported: ["header"],
    ...(oauth.scopes ? { scopes_supported: oauth.scopes } : {}),
    resource_name: "Conduit MCP gateway",
  };
}

/** The challenge of a 401: where the client discovers how to get a token (and why the one it sent failed). */
export function bearerChallenge(oauth: OAuthResource | undefined, invalidToken: boolean): string {
  const parts = ['Bearer realm="mcp"'];
  if (oauth) parts.push(`resource_metadata="${protectedResourceMetadataUrl(oauth.resource)}"`);
  if (invalidToken) parts.push('error="invalid_token"');
  if (oauth?.scopes && oauth.scopes.length > 0) parts.push(`scope="${oauth.scopes.join(" ")}"`);
  return parts.join(", ");
}
