import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import { createAuth0Provider } from "./auth0-provider.js";
import { createBetterAuthProvider } from "./better-auth-provider.js";
import { createClerkProvider } from "./clerk-provider.js";
import { createCognitoProvider } from "./cognito-provider.js";
import { FIREBASE_JWKS_URL, createFirebaseProvider } from "./firebase-provider.js";
import { createKeycloakProvider } from "./keycloak-provider.js";
import { createSupabaseProvider } from "./supabase-provider.js";
import { createWorkOSProvider } from "./workos-provider.js";

const noSessions = { sessions: false } as const;

describe("vendor providers derive their real endpoints from their natural settings", () => {
  it.each([
    [
      "auth0",
      () => createAuth0Provider({ domain: "example.us.auth0.com" }),
      "https://example.us.auth0.com/.well-known/jwks.json",
      "https://example.us.auth0.com/",
    ],
    [
      "keycloak",
      () => createKeycloakProvider({ url: "https://sso.example.com", realm: "conduit" }),
      "https://sso.example.com/realms/conduit/protocol/openid-connect/certs",
      "https://sso.example.com/realms/conduit",
    ],
    [
      "cognito",
      () => createCognitoProvider({ region: "eu-west-1", userPoolId: "eu-west-1_AbC" }),
      "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC/.well-known/jwks.json",
      "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC",
    ],
    ["firebase", () => createFirebaseProvider({ projectId: "my-project" }), FIREBASE_JWKS_URL, "https://securetoken.google.com/my-project"],
    [
      "supabase",
      () => createSupabaseProvider({ url: "https://abcd.supabase.co" }),
      "https://abcd.supabase.co/auth/v1/.well-known/jwks.json",
      "https://abcd.supabase.co/auth/v1",
    ],
    [
      "clerk",
      () => createClerkProvider({ frontendApi: "https://clerk.example.com" }),
      "https://clerk.example.com/.well-known/jwks.json",
      "https://clerk.example.com",
    ],
    [
      "better-auth",
      () => createBetterAuthProvider({ baseUrl: "https://app.example.com" }),
      "https://app.example.com/api/auth/jwks",
      "https://app.example.com",
    ],
    [
      "workos",
      () => createWorkOSProvider({ clientId: "client_123" }),
      "https://api.workos.com/sso/jwks/client_123",
      ["https://api.workos.com", "https://api.workos.com/user_management/client_123"],
    ],
  ] as Array<[string, () => JwtTokenProvider, string, string | string[]]>)("%s", (_name, create, jwksUrl, issuer) => {
    const provider = create();
    expect(provider.resolved.jwksUrl).toBe(jwksUrl);
    expect(provider.resolved.issuer).toEqual(issuer);
  });

  it("lets every derived URL be overridden, and names missing settings", () => {
    const provider = createAuth0Provider({
      domain: "example.auth0.com",
      jwksUrl: "http://127.0.0.1:1/keys",
      issuer: "http://127.0.0.1:1/",
    });
    expect(provider.resolved).toMatchObject({ jwksUrl: "http://127.0.0.1:1/keys", issuer: "http://127.0.0.1:1/" });
    expect(createClerkProvider({ secretKey: "sk_test_x" }).resolved).toMatchObject({
      jwksUrl: "https://api.clerk.com/v1/jwks",
      jwksHeaders: { authorization: "Bearer sk_test_x" },
    });
    expect(createSupabaseProvider({ jwtSecret: "a-legacy-supabase-jwt-secret-32-bytes-long" }).resolved.jwksUrl).toBeUndefined();
    expect(() => createKeycloakProvider({ url: "https://sso.example.com" })).toThrow(/auth.realm/);
    expect(() => createCognitoProvider({ region: "eu-west-1" })).toThrow(/userPoolId/);
    expect(() => createFirebaseProvider({})).toThrow(/auth.projectId: required/);
    expect(() => createWorkOSProvider({ clientId: "c", bogus: 1 } as never)).toThrow(/auth.bogus: unknown key/);
  });
});

describe("vendor providers map their own claims (against a local identity server)", () => {
  let idp: IdentityServer;
  let realm: IdentityServer;
  beforeAll(async () => {
    idp = await startIdentityServer();
    realm = await startIdentityServer({ issuerPath: "/realms/demo" });
  });
  afterAll(async () => {
    await idp.close();
    await realm.close();
  });

  const userOf = async (provider: JwtTokenProvider, token: string) => {
    const result = await provider.authenticateToken(token);
    if (!result.valid) throw result.error;
    return result.user;
  };

  it("keycloak: realm roles, client roles, scope and Authorization Services permissions", async () => {
    const provider = createKeycloakProvider({ url: realm.origin, realm: "demo", clientId: "conduit-api" }, noSessions);
    const token = await realm.sign({
      sub: "kc-user",
      preferred_username: "kc",
      realm_access: { roles: ["admin"] },
      resource_access: { "conduit-api": { roles: ["operator"] }, other: { roles: ["ignored"] } },
      scope: "openid tools:execute",
      authorization: { permissions: [{ rsname: "docs", scopes: ["read", "write"] }] },
    });
    const user = await userOf(provider, token);
    expect(user.roles).toEqual(["admin", "operator"]);
    expect(user.permissions).toEqual(expect.arrayContaining(["openid", "tools:execute", "docs:read", "docs:write"]));
  });

  it("auth0: permissions claim, scope and namespaced roles", async () => {
    const provider = createAuth0Provider(
      { domain: idp.origin, issuer: idp.issuer, audience: "https://api.example.com", namespace: "https://example.com" },
      noSessions,
    );
    const token = await idp.sign({
      sub: "auth0|1",
      aud: ["https://api.example.com"],
      permissions: ["read:tools"],
      scope: "openid",
      "https://example.com/roles": ["admin"],
    });
    expect(await userOf(provider, token)).toMatchObject({ id: "auth0|1", roles: ["admin"], permissions: ["read:tools", "openid"] });
  });

  it("cognito: groups as roles, scope as permissions, token_use and client checked", async () => {
    const provider = createCognitoProvider({ jwksUrl: idp.jwksUrl, issuer: idp.issuer, clientId: "client-a" }, noSessions);
    const access = await idp.sign({
      sub: "c1",
      token_use: "access",
      client_id: "client-a",
      "cognito:groups": ["admins"],
      scope: "conduit/tools",
    });
    expect(await userOf(provider, access)).toMatchObject({ roles: ["admins"], permissions: ["conduit/tools"] });
    await expect(userOf(provider, await idp.sign({ sub: "c1", token_use: "id", aud: "client-a" }))).rejects.toThrow(
      "Token is not an access token",
    );
    await expect(userOf(provider, await idp.sign({ sub: "c1", token_use: "access", client_id: "client-b" }))).rejects.toThrow(
      "another app client",
    );
  });

  it("firebase: project audience and custom claims", async () => {
    const provider = createFirebaseProvider({ projectId: "demo-project", jwksUrl: idp.jwksUrl, issuer: idp.issuer }, noSessions);
    expect(
      await userOf(provider, await idp.sign({ sub: "fb1", aud: "demo-project", role: "editor", email: "f@example.com" })),
    ).toMatchObject({ roles: ["editor"], email: "f@example.com" });
    await expect(userOf(provider, await idp.sign({ sub: "fb1", aud: "another-project" }))).rejects.toThrow("audience");
  });

  it("supabase: project URL derives issuer and JWKS; app_metadata roles; audience authenticated", async () => {
    const supabase = await startIdentityServer({ issuerPath: "/auth/v1" });
    try {
      const provider = createSupabaseProvider({ url: supabase.origin }, noSessions);
      const token = await supabase.sign({
        sub: "sb1",
        aud: "authenticated",
        role: "authenticated",
        app_metadata: { roles: ["admin"], permissions: ["memory:*"] },
      });
      expect(await userOf(provider, token)).toMatchObject({ roles: ["admin", "authenticated"], permissions: ["memory:*"] });
      await expect(userOf(provider, await supabase.sign({ sub: "sb1", aud: "anon" }))).rejects.toThrow("audience");
    } finally {
      await supabase.close();
    }
  });

  it("clerk: org role and permissions (v1 and v2 tokens), azp checked", async () => {
    const provider = createClerkProvider({ frontendApi: idp.origin, authorizedParties: ["https://app.example.com"] }, noSessions);
    const v1 = await idp.sign({
      sub: "user_1",
      sid: "sess_1",
      azp: "https://app.example.com",
      org_role: "org:admin",
      org_permissions: ["org:tools:run"],
    });
    expect(await userOf(provider, v1)).toMatchObject({ roles: ["org:admin"], permissions: ["org:tools:run"] });
    const v2 = await idp.sign({ sub: "user_1", v: 2, o: { id: "org_1", rol: "admin", per: "read,write" } });
    expect(await userOf(provider, v2)).toMatchObject({ roles: ["admin"], permissions: ["read", "write"] });
    await expect(userOf(provider, await idp.sign({ sub: "user_1", azp: "https://evil.example" }))).rejects.toThrow("azp");
  });

  it("better-auth: baseUrl as issuer and audience, JWKS at /api/auth/jwks, EdDSA", async () => {
    const app = await startIdentityServer({ alg: "EdDSA" });
    try {
      const provider = createBetterAuthProvider({ baseUrl: app.origin }, noSessions);
      const token = await app.sign({ sub: "ba1", aud: app.origin, role: "admin,user" });
      expect(await userOf(provider, token)).toMatchObject({ id: "ba1", roles: ["admin", "user"] });
      expect(app.hits("/api/auth/jwks")).toBe(1);
    } finally {
      await app.close();
    }
  });

  it("workos: client JWKS, either AuthKit issuer, role and permissions", async () => {
    const provider = createWorkOSProvider({ clientId: "client_1", apiUrl: idp.origin }, noSessions);
    const token = await idp.sign({
      sub: "user_w",
      iss: `${idp.origin}/user_management/client_1`,
      sid: "session_1",
      org_id: "org_1",
      role: "member",
      permissions: ["posts:read"],
    });
    expect(await userOf(provider, token)).toMatchObject({ roles: ["member"], permissions: ["posts:read"] });
    expect(idp.hits("/sso/jwks/client_1")).toBe(1);
  });
});
