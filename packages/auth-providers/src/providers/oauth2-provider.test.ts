import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import { createOAuth2Provider } from "./oauth2-provider.js";

const client = { id: "conduit-api", secret: "s3cret-client" };
const noSessions = { sessions: false } as const;

describe("oauth2 provider against a local OIDC server", () => {
  let idp: IdentityServer;
  beforeAll(async () => {
    idp = await startIdentityServer({ client });
  });
  afterAll(() => idp.close());

  it("discovers the endpoints and introspects with client credentials (RFC 7662)", async () => {
    const provider = createOAuth2Provider({ issuer: idp.issuer, clientId: client.id, clientSecret: client.secret }, noSessions);
    const token = idp.issueOpaqueToken({ sub: "op-1", scope: "tools:execute memory:read", roles: ["operator"], email: "o@example.com" });
    const result = await provider.authenticateToken(token);
    expect(result.valid).toBe(true);
    if (!result.valid) return;
    expect(result.user).toMatchObject({
      id: "op-1",
      email: "o@example.com",
      roles: ["operator"],
      permissions: ["tools:execute", "memory:read"],
    });
    expect(idp.hits("/.well-known/openid-configuration")).toBe(1);
    expect(idp.hits("/introspect")).toBe(1);
  });

  it("caches an introspection result until the token's exp, by digest", async () => {
    const provider = createOAuth2Provider(
      { introspectionUrl: `${idp.issuer}/introspect`, clientId: client.id, clientSecret: client.secret },
      noSessions,
    );
    const token = idp.issueOpaqueToken({ sub: "cached" });
    const before = idp.hits("/introspect");
    for (let call = 0; call < 3; call++) expect((await provider.authenticateToken(token)).valid).toBe(true);
    expect(idp.hits("/introspect") - before).toBe(1);
  });

  it("refuses inactive and unknown tokens with 401; a wrong client secret is a provider error", async () => {
    const provider = createOAuth2Provider(
      { introspectionUrl: `${idp.issuer}/introspect`, clientId: client.id, clientSecret: client.secret },
      noSessions,
    );
    const inactive = await provider.authenticateToken(idp.issueOpaqueToken({ sub: "x" }, { active: false }));
    expect(!inactive.valid && inactive.error).toMatchObject({ statusCode: 401, message: "Token is not active", provider: "oauth2" });
    const unknown = await provider.authenticateToken("never-issued");
    expect(!unknown.valid && unknown.error.statusCode).toBe(401);
    const misconfigured = createOAuth2Provider(
      { introspectionUrl: `${idp.issuer}/introspect`, clientId: client.id, clientSecret: "wrong" },
      noSessions,
    );
    const failed = await misconfigured.authenticateToken(idp.issueOpaqueToken({ sub: "x" }));
    expect(!failed.valid && failed.error).toMatchObject({ code: "AUTH_PROVIDER_ERROR", statusCode: 502 });
  });

  it("checks the audience of introspection results", async () => {
    const provider = createOAuth2Provider(
      { introspectionUrl: `${idp.issuer}/introspect`, clientId: client.id, clientSecret: client.secret, audience: "conduit" },
      noSessions,
    );
    expect((await provider.authenticateToken(idp.issueOpaqueToken({ sub: "a", aud: "conduit" }))).valid).toBe(true);
    const other = await provider.authenticateToken(idp.issueOpaqueToken({ sub: "a", aud: "billing" }));
    expect(!other.valid && other.error.message).toBe("Token audience is not accepted");
  });

  it("uses OIDC userinfo when no client credentials are given (JWT or opaque access tokens)", async () => {
    const provider = createOAuth2Provider({ issuer: idp.issuer }, noSessions);
    const jwt = await idp.sign({ sub: "ui-1", email: "u@example.com", roles: ["viewer"] });
    const result = await provider.authenticateToken(jwt);
    expect(result.valid && result.user).toMatchObject({ id: "ui-1", email: "u@example.com", roles: ["viewer"] });
    expect(idp.hits("/userinfo")).toBeGreaterThanOrEqual(1);
    const refused = await provider.authenticateToken("garbage-token");
    expect(!refused.valid && refused.error).toMatchObject({ statusCode: 401, message: "Token refused by the identity provider" });
  });

  it("names bad settings and needs client credentials to introspect", () => {
    expect(() => createOAuth2Provider({})).toThrow(/issuer, discoveryUrl, introspectionUrl or userinfoUrl/);
    expect(() => createOAuth2Provider({ introspectionUrl: "https://x/introspect" })).toThrow(/clientId and clientSecret/);
    expect(() => createOAuth2Provider({ issuer: "https://x", mode: "magic" as never })).toThrow(/auth.mode/);
  });

  it("retries a failed discovery on the next request", async () => {
    const flaky = await startIdentityServer({ client });
    try {
      const provider = createOAuth2Provider({ issuer: flaky.issuer, clientId: client.id, clientSecret: client.secret }, noSessions);
      flaky.failWith(500);
      const token = flaky.issueOpaqueToken({ sub: "later" });
      expect((await provider.authenticateToken(token)).valid).toBe(false);
      flaky.failWith(undefined);
      expect((await provider.authenticateToken(token)).valid).toBe(true);
    } finally {
      await flaky.close();
    }
  });
});
