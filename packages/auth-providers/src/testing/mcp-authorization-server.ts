/// <reference path="./oidc-provider.d.ts" />
import { randomUUID } from "node:crypto";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT, exportJWK, generateKeyPair, jwtVerify } from "jose";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

/** A real authorization server for an MCP resource (panva's `oidc-provider`), for tests. */
export interface McpAuthorizationServer {
  /** `http://127.0.0.1:<port>`: the issuer, discovery at `/.well-known/openid-configuration`. */
  issuer: string;
  /** The MCP client (client credentials grant, RFC 8707 resource indicators: JWT access tokens for the resource). */
  agent: { id: string; secret: string };
  /** The gateway as a confidential client allowed the token exchange grant (RFC 8693). */
  gateway: { id: string; secret: string };
  /** Tokens issued by token exchange, with what they were exchanged for. */
  readonly exchanged: Array<{ token: string; subject: string; audience: string; actor: string }>;
  /** The claims of an access token this server issued (signature and issuer checked), or undefined. */
  verify(token: string, audience?: string): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

/**
 * Starts `oidc-provider` on a loopback port issuing JWT access tokens for resource indicators
 * (RFC 8707: the token's `aud` is the resource asked for) by the client credentials grant, with an
 * RFC 8693 token exchange grant registered on the provider: a subject token it issued, in; a token
 * for the requested `audience` with the caller as `act`, out.
 *
 * @example
 * const as = await startMcpAuthorizationServer();
 * // MCP client: new ClientCredentialsProvider({ clientId: as.agent.id, clientSecret: as.agent.secret, expectedIssuer: as.issuer })
 */
export async function startMcpAuthorizationServer(): Promise<McpAuthorizationServer> {
  const { default: Provider } = await import("oidc-provider");
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = { id: "mcp-agent", secret: "mcp-agent-secret-0123456789" };
  const gateway = { id: "conduit-gateway", secret: "conduit-gateway-secret-0123456789" };
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = "mcp-as-key-1";
  const client = (id: string, secret: string, grants: string[]) => ({
    client_id: id,
    client_secret: secret,
    grant_types: grants,
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: "client_secret_basic",
  });
  const provider = new Provider(issuer, {
    clients: [client(agent.id, agent.secret, ["client_credentials"]), client(gateway.id, gateway.secret, [TOKEN_EXCHANGE])],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" }] },
    cookies: { keys: ["conduit-mcp-as-cookie-key"] },
    scopes: ["mcp"],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => ({
          scope: "mcp",
          audience: resourceIndicator,
          accessTokenFormat: "jwt",
          accessTokenTTL: 600,
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
  });
  const verify = async (token: string, audience?: string) => {
    try {
      const { payload } = await jwtVerify(token, publicKey, { issuer, ...(audience ? { audience } : {}) });
      return payload as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  const exchanged: McpAuthorizationServer["exchanged"] = [];
  provider.registerGrantType(
    TOKEN_EXCHANGE,
    async (ctx) => {
      const params = ctx.oidc.params as Record<string, string | undefined>;
      const claims = params.subject_token ? await verify(params.subject_token) : undefined;
      if (!claims || !params.audience) {
        ctx.status = 400;
        ctx.body = { error: "invalid_grant", error_description: "subject_token is not a token of this issuer, or no audience" };
        return;
      }
      const subject = String(claims.sub ?? claims.client_id);
      const actor = ctx.oidc.client.clientId as string;
      const token = await new SignJWT({ scope: params.scope ?? "mcp", act: { sub: actor }, client_id: actor })
        .setProtectedHeader({ alg: "RS256", kid, typ: "at+jwt" })
        .setIssuer(issuer)
        .setSubject(subject)
        .setAudience(params.audience)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(privateKey);
      exchanged.push({ token, subject, audience: params.audience, actor });
      ctx.body = {
        access_token: token,
        issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
        token_type: "Bearer",
        expires_in: 300,
      };
    },
    ["subject_token", "subject_token_type", "audience", "requested_token_type", "scope", "resource"],
  );
  server.on("request", provider.callback());
  return {
    issuer,
    agent,
    gateway,
    exchanged,
    verify,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
