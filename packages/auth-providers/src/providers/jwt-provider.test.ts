import { SignJWT, exportJWK, exportSPKI, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import { createJwtProvider } from "./jwt-provider.js";

const SECRET = "a-shared-secret-of-at-least-32-bytes!!";
const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("jwt provider", () => {
  let idp: IdentityServer;
  beforeAll(async () => {
    idp = await startIdentityServer();
  });
  afterAll(() => idp.close());

  const jwks = (extra: Record<string, unknown> = {}) =>
    createJwtProvider(
      { jwksUrl: idp.jwksUrl, issuer: idp.issuer, audience: "conduit-api", verifiedCacheTtlMs: 0, ...extra },
      { sessions: false },
    );

  it("accepts a token signed by a JWKS key and maps roles and permissions", async () => {
    const token = await idp.sign({ sub: "alice", aud: "conduit-api", email: "a@example.com", roles: ["admin"], permissions: ["tools:*"] });
    const result = await jwks().authenticateToken(token);
    expect(result.valid).toBe(true);
    if (!result.valid) return;
    expect(result.user).toMatchObject({ id: "alice", email: "a@example.com", roles: ["admin"], permissions: ["tools:*"] });
    expect(result.claims.aud).toBe("conduit-api");
  });

  it("reads roles from a configured dot path", async () => {
    const token = await idp.sign({ sub: "bob", aud: "conduit-api", app: { access: { roles: "editor viewer" } } });
    const result = await jwks({ rolesClaim: "app.access.roles" }).authenticateToken(token);
    expect(result.valid && result.user.roles).toEqual(["editor", "viewer"]);
  });

  const refused = async (token: string, provider = jwks()) => {
    const result = await provider.authenticateToken(token);
    if (result.valid) throw new Error("expected a refusal");
    return result.error;
  };

  it("refuses alg none, a wrong issuer or audience, expired and not-yet-valid tokens, each with 401 and a reason", async () => {
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ sub: "eve", iss: idp.issuer, aud: "conduit-api", exp: now + 60 })}.`;
    expect(await refused(unsigned)).toMatchObject({
      statusCode: 401,
      code: "AUTH_INVALID",
      provider: "jwt",
      message: expect.stringContaining("alg: none"),
    });
    expect(await refused(await idp.sign({ sub: "eve", aud: "conduit-api", iss: "https://evil.example" }))).toMatchObject({
      statusCode: 401,
      message: "Token issuer is not accepted",
    });
    expect(await refused(await idp.sign({ sub: "eve", aud: "other-api" }))).toMatchObject({
      statusCode: 401,
      message: "Token audience is not accepted",
    });
    expect(await refused(await idp.sign({ sub: "eve", aud: "conduit-api", exp: now - 60 }))).toMatchObject({
      statusCode: 401,
      code: "TOKEN_EXPIRED",
    });
    expect(await refused(await idp.sign({ sub: "eve", aud: "conduit-api", nbf: now + 600 }))).toMatchObject({
      statusCode: 401,
      message: "Token is not valid yet",
    });
    expect(await refused("not.a.jwt!")).toMatchObject({ statusCode: 401, message: "Malformed token" });
    expect(await refused(await idp.sign({ aud: "conduit-api" }))).toMatchObject({ statusCode: 401, message: "Token names no user" });
  });

  it("honors the clock tolerance on exp", async () => {
    const token = await idp.sign({ sub: "late", aud: "conduit-api", exp: Math.floor(Date.now() / 1000) - 3 });
    expect((await jwks({ clockToleranceSec: 30 }).authenticateToken(token)).valid).toBe(true);
    expect((await jwks({ clockToleranceSec: 0 }).authenticateToken(token)).valid).toBe(false);
  });

  it("refuses a token that never expires unless requiredClaims says otherwise", async () => {
    const key = idp.keys[0];
    if (!key) throw new Error("no key");
    const token = await new SignJWT({ sub: "forever", aud: "conduit-api", iss: idp.issuer })
      .setProtectedHeader({ alg: key.alg, kid: key.kid })
      .sign(key.privateKey);
    expect(await refused(token)).toMatchObject({ message: 'Token is missing the "exp" claim' });
    expect((await jwks({ requiredClaims: [] }).authenticateToken(token)).valid).toBe(true);
  });

  it("refuses an HS256 token forged with the public key as the secret", async () => {
    const key = idp.keys[0];
    if (!key) throw new Error("no key");
    const publicPem = await exportSPKI(
      (await import("node:crypto")).createPublicKey({ key: key.publicJwk as import("node:crypto").JsonWebKey, format: "jwk" }) as never,
    );
    const forged = await new SignJWT({ sub: "mallory", aud: "conduit-api", iss: idp.issuer })
      .setProtectedHeader({ alg: "HS256", kid: key.kid })
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(publicPem));
    expect(await refused(forged)).toMatchObject({ statusCode: 401, message: "Token algorithm is not accepted" });
    // Same with a static public key instead of a JWKS.
    const pinned = createJwtProvider({ publicKey: publicPem, issuer: idp.issuer, audience: "conduit-api" }, { sessions: false });
    expect(await refused(forged, pinned)).toMatchObject({ statusCode: 401 });
    expect((await pinned.authenticateToken(await idp.sign({ sub: "alice", aud: "conduit-api" }))).valid).toBe(true);
  });

  it("refuses HS algorithms next to a public key at creation", () => {
    expect(() => createJwtProvider({ jwksUrl: idp.jwksUrl, algorithms: ["HS256"] })).toThrow(/HS\* algorithms need a secret/);
    expect(() => createJwtProvider({ secret: "short" })).toThrow(/at least 32 bytes/);
    expect(() => createJwtProvider({})).toThrow(/exactly one of secret, publicKey, jwksUrl/);
    expect(() => createJwtProvider({ publicKey: "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----" })).toThrow(/PEM public key/);
    expect(() => createJwtProvider({ jwksUrl: "ftp://x", isuer: "typo" } as never)).toThrow(
      /auth.jwksUrl: expected an absolute http\(s\) URL; auth.isuer: unknown key/,
    );
  });

  it("verifies HS256 with a shared secret, and refuses a token signed with another", async () => {
    const provider = createJwtProvider({ secret: SECRET, issuer: "me" }, { sessions: false });
    const good = await new SignJWT({ sub: "svc", roles: ["service"] })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("me")
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(SECRET));
    expect((await provider.authenticateToken(good)).valid).toBe(true);
    const bad = await new SignJWT({ sub: "svc" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("me")
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(`${SECRET}x`));
    expect(await refused(bad, provider)).toMatchObject({ message: "Token signature is invalid" });
    const rs = await idp.sign({ sub: "x", iss: "me" });
    expect(await refused(rs, provider)).toMatchObject({ message: "Token algorithm is not accepted" });
  });

  it("verifies ES256 and EdDSA with public JWKs", async () => {
    for (const alg of ["ES256", "EdDSA"] as const) {
      const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
      const provider = createJwtProvider({ publicKey: await exportJWK(publicKey) }, { sessions: false });
      const token = await new SignJWT({ sub: alg }).setProtectedHeader({ alg }).setExpirationTime("5m").sign(privateKey);
      expect((await provider.authenticateToken(token)).valid, alg).toBe(true);
    }
  });

  it("follows a key rotation without restart: unknown kid → one refetch, old keys dropped → refused", async () => {
    const rotating = await startIdentityServer();
    try {
      const provider = createJwtProvider(
        { jwksUrl: rotating.jwksUrl, issuer: rotating.issuer, jwksCooldownMs: 0, verifiedCacheTtlMs: 0 },
        { sessions: false },
      );
      const before = await rotating.sign({ sub: "u" });
      expect((await provider.authenticateToken(before)).valid).toBe(true);
      expect((await provider.authenticateToken(before)).valid).toBe(true);
      expect(rotating.totalJwksFetches()).toBe(1); // cached

      await rotating.rotate({ dropOld: true });
      const after = await rotating.sign({ sub: "u" });
      expect((await provider.authenticateToken(after)).valid).toBe(true);
      expect(rotating.totalJwksFetches()).toBe(2); // refetched for the new kid
      // The old key left the set: its token no longer verifies.
      const old = await provider.authenticateToken(before);
      expect(old.valid).toBe(false);
    } finally {
      await rotating.close();
    }
  });

  it("does not refetch the key set for every unknown kid within the cooldown", async () => {
    const server = await startIdentityServer();
    try {
      const provider = createJwtProvider({ jwksUrl: server.jwksUrl, jwksCooldownMs: 600_000, verifiedCacheTtlMs: 0 }, { sessions: false });
      expect((await provider.authenticateToken(await server.sign({ sub: "u" }))).valid).toBe(true);
      for (let attempt = 0; attempt < 5; attempt++) {
        const forged = await server.sign({ sub: "u" }, { header: { kid: `unknown-${attempt}` } });
        expect((await provider.authenticateToken(forged)).valid).toBe(false);
      }
      expect(server.totalJwksFetches()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("reports a key set outage as AUTH_PROVIDER_UNAVAILABLE (503, retryable), and recovers", async () => {
    const server = await startIdentityServer();
    try {
      const provider = createJwtProvider({ jwksUrl: server.jwksUrl, verifiedCacheTtlMs: 0 }, { sessions: false });
      server.failWith(503);
      const result = await provider.authenticateToken(await server.sign({ sub: "u" }));
      expect(result.valid).toBe(false);
      if (!result.valid) expect(result.error).toMatchObject({ code: "AUTH_PROVIDER_UNAVAILABLE", statusCode: 503, provider: "jwt" });
      expect((await provider.healthCheck()).status).toBe("down");
      server.failWith(undefined);
      expect((await provider.authenticateToken(await server.sign({ sub: "u" }))).valid).toBe(true);
      expect((await provider.healthCheck()).status).toBe("ok");
    } finally {
      await server.close();
    }
  });

  it("caches verified tokens but never past their expiry", async () => {
    const provider = createJwtProvider({ jwksUrl: idp.jwksUrl, clockToleranceSec: 0 }, { sessions: false });
    const token = await idp.sign({ sub: "cached" }, { expiresInSec: 1 });
    expect((await provider.authenticateToken(token)).valid).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = await provider.authenticateToken(token);
    expect(later.valid).toBe(false);
    if (!later.valid) expect(later.error.code).toBe("TOKEN_EXPIRED");
  });
});
