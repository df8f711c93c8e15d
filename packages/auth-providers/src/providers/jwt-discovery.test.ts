import type { Logger } from "@conduit-ai/server-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import { createJwtProvider } from "./jwt-provider.js";

function recordingLogger(): Logger & { warnings: Array<[Record<string, unknown>, string | undefined]> } {
  const warnings: Array<[Record<string, unknown>, string | undefined]> = [];
  const none = () => undefined;
  return {
    warnings,
    debug: none,
    info: none,
    error: none,
    warn: (object, message) => warnings.push([object as Record<string, unknown>, message]),
  };
}

describe("jwt provider: key set discovery", () => {
  let idp: IdentityServer;
  beforeAll(async () => {
    idp = await startIdentityServer({ issuerPath: "/realms/demo" });
  });
  afterAll(() => idp.close());

  it("with only an issuer, reads jwks_uri from its OpenID configuration and verifies tokens (keys rotate too)", async () => {
    const logger = recordingLogger();
    const provider = createJwtProvider({ issuer: idp.issuer, verifiedCacheTtlMs: 0, jwksCooldownMs: 0 }, { sessions: false, logger });
    await provider.initialize();
    const before = idp.hits("/realms/demo/.well-known/openid-configuration");
    expect(before).toBeGreaterThan(0);
    const result = await provider.authenticateToken(await idp.sign({ sub: "ada" }));
    expect(result.valid && result.user.id).toBe("ada");
    await idp.rotate();
    const rotated = await provider.authenticateToken(await idp.sign({ sub: "bob" }));
    expect(rotated.valid && rotated.user.id).toBe("bob");
    // Discovered once.
    expect(idp.hits("/realms/demo/.well-known/openid-configuration")).toBe(before);
    expect(logger.warnings).toEqual([]);
  });

  it("warns at startup, naming both, when the issuer differs from the document's by a trailing slash", async () => {
    const logger = recordingLogger();
    const provider = createJwtProvider({ issuer: `${idp.issuer}/` }, { sessions: false, logger });
    await provider.initialize();
    expect(logger.warnings).toHaveLength(1);
    const [fields, message] = logger.warnings[0] ?? [{}, ""];
    expect(fields).toMatchObject({ provider: "jwt", configuredIssuer: `${idp.issuer}/`, discoveredIssuer: idp.issuer });
    expect(message).toContain(`"${idp.issuer}/"`);
    expect(message).toContain(`"${idp.issuer}"`);
  });

  it("an issuer naming another document is refused; an unreachable one is 503 and retried by the next request", async () => {
    const other = createJwtProvider(
      { issuer: "http://127.0.0.1:1/elsewhere", discoveryUrl: `${idp.issuer}/.well-known/openid-configuration` },
      { sessions: false, logger: recordingLogger() },
    );
    const refused = await other.authenticateToken(await idp.sign({ sub: "eve" }));
    expect(!refused.valid && refused.error.code).toBe("AUTH_PROVIDER_ERROR");
    const down = await startIdentityServer();
    const provider = createJwtProvider({ issuer: down.issuer }, { sessions: false, logger: recordingLogger() });
    const token = await down.sign({ sub: "u" });
    down.failWith(503);
    const during = await provider.authenticateToken(token);
    expect(!during.valid && during.error.code).toBe("AUTH_PROVIDER_UNAVAILABLE");
    down.failWith(undefined);
    expect((await provider.authenticateToken(token)).valid).toBe(true);
    await down.close();
  });

  it("without key source or issuer, the settings error names the choice", () => {
    expect(() => createJwtProvider({}, { sessions: false })).toThrow(/secret, publicKey, jwksUrl \(or an issuer/);
  });
});
