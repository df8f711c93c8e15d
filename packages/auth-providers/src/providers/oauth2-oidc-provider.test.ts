import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OidcServer, startOidcServer } from "../testing/oidc-server.js";
import { createOAuth2Provider } from "./oauth2-provider.js";

describe("oauth2 provider against a real OpenID Provider (oidc-provider)", () => {
  let op: OidcServer;
  beforeAll(async () => {
    op = await startOidcServer();
  });
  afterAll(() => op.close());

  const provider = () =>
    createOAuth2Provider({ issuer: op.issuer, clientId: op.client.id, clientSecret: op.client.secret }, { sessions: false });

  it("discovers the endpoints and introspects a client credentials token (the client is the user)", async () => {
    const token = await op.clientCredentialsToken();
    const result = await provider().authenticateToken(token);
    expect(result.valid).toBe(true);
    if (result.valid) expect(result.user.id).toBe(op.client.id);
  });

  it("refreshToken: RFC 6749 refresh grant; the new access token introspects as the account; a rotated-away refresh token is refused", async () => {
    const oauth = provider();
    const refresh = await op.issueRefreshToken("alice");
    const first = await oauth.refreshToken(refresh);
    expect(first.accessToken).toEqual(expect.any(String));
    expect(first.refreshToken).toEqual(expect.any(String));
    expect(first.refreshToken).not.toBe(refresh);
    expect(first.expiresIn).toBeGreaterThan(0);
    const checked = await oauth.authenticateToken(first.accessToken);
    expect(checked.valid && checked.user.id).toBe("alice");
    // Rotation: the first refresh token was consumed.
    await expect(oauth.refreshToken(refresh)).rejects.toMatchObject({ code: "AUTH_INVALID", statusCode: 401 });
    await expect(oauth.refreshToken("never-issued")).rejects.toMatchObject({ code: "AUTH_INVALID", statusCode: 401 });
  });

  it("revokeToken: RFC 7009; a revoked access token is refused at once (also from the cache), a revoked refresh token cannot refresh", async () => {
    const oauth = provider();
    const { accessToken, refreshToken } = await oauth.refreshToken(await op.issueRefreshToken("bob"));
    expect((await oauth.authenticateToken(accessToken)).valid).toBe(true); // now cached
    await oauth.revokeToken(accessToken);
    expect((await op.introspect(accessToken)).active).toBe(false);
    const after = await oauth.authenticateToken(accessToken);
    expect(!after.valid && after.error.code).toBe("AUTH_INVALID");
    if (!refreshToken) throw new Error("rotation gives a refresh token");
    await oauth.revokeToken(refreshToken);
    await expect(oauth.refreshToken(refreshToken)).rejects.toMatchObject({ code: "AUTH_INVALID" });
  });

  it("token operations need client credentials; an unreachable server is 503", async () => {
    const withoutClient = createOAuth2Provider({ issuer: op.issuer, mode: "userinfo" }, { sessions: false });
    await expect(withoutClient.refreshToken("r")).rejects.toMatchObject({ code: "INVALID_CONFIG" });
    const down = createOAuth2Provider(
      { tokenUrl: "http://127.0.0.1:1/token", userinfoUrl: "http://127.0.0.1:1/userinfo", clientId: "c", clientSecret: "s" },
      { sessions: false },
    );
    await expect(down.refreshToken("r")).rejects.toMatchObject({ code: "AUTH_PROVIDER_UNAVAILABLE", statusCode: 503 });
  });
});
