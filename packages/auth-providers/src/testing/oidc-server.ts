/// <reference path="./oidc-provider.d.ts" />
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";

/** A real OpenID Provider (panva's certified `oidc-provider`) on loopback, for tests. */
export interface OidcServer {
  /** `http://127.0.0.1:<port>`: the issuer, with discovery at `/.well-known/openid-configuration`. */
  issuer: string;
  client: { id: string; secret: string };
  /** A refresh token for `accountId` (an authorization-code grant with `offline_access`, made in the provider's own models). */
  issueRefreshToken(accountId: string): Promise<string>;
  /** An opaque access token from the client credentials grant at the token endpoint. */
  clientCredentialsToken(): Promise<string>;
  /** RFC 7662 introspection as the client, straight at the provider. */
  introspect(token: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Starts `oidc-provider` on an ephemeral loopback port with one confidential client
 * (`client_secret_basic`; authorization code, refresh token and client credentials grants),
 * introspection and revocation on, refresh tokens rotated on use.
 *
 * @example
 * const op = await startOidcServer();
 * const refresh = await op.issueRefreshToken("alice");
 */
export async function startOidcServer(): Promise<OidcServer> {
  const { default: Provider } = await import("oidc-provider");
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = { id: "conduit", secret: "conduit-oidc-client-secret" };
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.id,
        client_secret: client.secret,
        grant_types: ["authorization_code", "refresh_token", "client_credentials"],
        redirect_uris: ["http://127.0.0.1/callback"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: "op-key-1", alg: "RS256", use: "sig" }] },
    cookies: { keys: ["conduit-test-cookie-key"] },
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: true },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
    },
    rotateRefreshToken: true,
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
  });
  server.on("request", provider.callback());
  const basic = `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString("base64")}`;
  const post = async (path: string, form: Record<string, string>) => {
    const response = await fetch(`${issuer}${path}`, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  return {
    issuer,
    client,
    async issueRefreshToken(accountId) {
      const grant = new provider.Grant({ accountId, clientId: client.id });
      grant.addOIDCScope("openid offline_access");
      const grantId = await grant.save();
      const found = await provider.Client.find(client.id);
      const refresh = new provider.RefreshToken({
        accountId,
        grantId,
        client: found,
        scope: "openid offline_access",
        gty: "authorization_code",
        authTime: Math.floor(Date.now() / 1000),
      });
      return refresh.save();
    },
    async clientCredentialsToken() {
      const answer = await post("/token", { grant_type: "client_credentials" });
      if (typeof answer.access_token !== "string") throw new Error(`client credentials refused: ${JSON.stringify(answer)}`);
      return answer.access_token;
    },
    introspect: (token) => post("/token/introspection", { token }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
