import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerContext } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { createProviderAuthFromConfig } from "../config/provider-auth-from-config.js";
import { createCustomProvider } from "../providers/custom-provider.js";
import { createJwtProvider } from "../providers/jwt-provider.js";
import { createOAuth2Provider } from "../providers/oauth2-provider.js";
import { createAuthorizationRulesMiddleware } from "../rbac/authorization-rules.js";
import {
  AuthProviderError,
  AuthRateLimitError,
  AuthenticationFailedError,
  InsufficientPermissionsError,
  MissingTokenError,
  ProviderInitializationError,
} from "./auth-errors.js";

const context = (user?: { id: string; roles: string[]; permissions: string[] }) =>
  ({ method: "POST", path: "/api/tools/x", route: undefined, user, state: {} }) as unknown as ServerContext;

describe("the auth error classes are raised where they belong", () => {
  it("authorization rules refuse with InsufficientPermissionsError (403 FORBIDDEN) and MissingTokenError (401) naming the provider", async () => {
    const provider = createJwtProvider({ secret: "a-shared-secret-of-at-least-32-bytes!!" }, { sessions: false });
    const rules = createAuthorizationRulesMiddleware({ provider, rules: [{ path: "/api/tools/*", permissions: ["tools:execute"] }] });
    const next = async () => undefined;
    const forbidden = await rules.handler(context({ id: "u", roles: [], permissions: [] }), next).catch((error: unknown) => error);
    expect(forbidden).toBeInstanceOf(InsufficientPermissionsError);
    expect(forbidden).toMatchObject({ statusCode: 403, code: "FORBIDDEN", category: "AUTHORIZATION", provider: "jwt" });
    const anonymous = await rules.handler(context(), next).catch((error: unknown) => error);
    expect(anonymous).toBeInstanceOf(MissingTokenError);
    expect(anonymous).toMatchObject({ statusCode: 401, code: "AUTH_REQUIRED" });
  });

  it("a custom validator's refusal is AuthenticationFailedError (401 AUTH_INVALID)", async () => {
    const provider = createCustomProvider({ validate: () => null }, { sessions: false });
    const result = await provider.authenticateToken("t");
    expect(!result.valid && result.error).toBeInstanceOf(AuthenticationFailedError);
    expect(!result.valid && result.error).toMatchObject({ statusCode: 401, code: "AUTH_INVALID" });
  });

  it("a validator module that cannot load is ProviderInitializationError, from the provider and from the config", async () => {
    const provider = createCustomProvider({ module: "./no-such-validator.mjs" }, { sessions: false });
    await expect(provider.initialize()).rejects.toBeInstanceOf(ProviderInitializationError);
    const failure = await createProviderAuthFromConfig({ type: "custom", module: "./no-such-validator.mjs", sessions: false }).catch(
      (error: unknown) => error,
    );
    expect(AuthProviderError.isInstance(failure) && failure.code).toBe("AUTH_PROVIDER_INIT_FAILED");
    expect((failure as Error).message).toContain("no-such-validator.mjs");
  });

  it("an identity provider answering 429 is AuthRateLimitError with its Retry-After", async () => {
    const limited = createServer((_request, response) => {
      response.writeHead(429, { "retry-after": "7", "content-type": "application/json" });
      response.end('{"error":"slow_down"}');
    });
    await new Promise<void>((resolve) => limited.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(limited.address() as AddressInfo).port}/introspect`;
      const provider = createOAuth2Provider({ introspectionUrl: url, clientId: "c", clientSecret: "s" }, { sessions: false });
      const result = await provider.authenticateToken("opaque");
      expect(!result.valid && result.error).toBeInstanceOf(AuthRateLimitError);
      expect(!result.valid && result.error).toMatchObject({
        statusCode: 429,
        code: "AUTH_RATE_LIMITED",
        retryAfterMs: 7000,
        retryable: true,
      });
      // The identity provider answered: not an outage.
      expect(provider.availability.up).toBe(true);
    } finally {
      await new Promise((resolve) => limited.close(resolve));
    }
  });
});

describe("provider.extractToken", () => {
  const provider = createJwtProvider({ secret: "a-shared-secret-of-at-least-32-bytes!!" }, { sessions: false });

  it("reads Bearer from the authorization header whatever the case of its name and scheme", () => {
    expect(provider.extractToken({ Authorization: "Bearer abc" })).toBe("abc");
    expect(provider.extractToken({ AUTHORIZATION: "bearer abc" })).toBe("abc");
    expect(provider.extractToken({ headers: { authorization: "BEARER abc" } })).toBe("abc");
    expect(provider.extractToken({ headers: new Headers({ Authorization: "Bearer abc" }) })).toBe("abc");
    expect(provider.extractToken({ header: (name: string) => (name === "authorization" ? "Bearer abc" : undefined) })).toBe("abc");
  });

  it("answers null for no header, another scheme, or a Bearer without a single token", () => {
    expect(provider.extractToken({})).toBeNull();
    expect(provider.extractToken({ authorization: "Basic YTpi" })).toBeNull();
    expect(provider.extractToken({ authorization: "Bearer" })).toBeNull();
    expect(provider.extractToken({ authorization: "Bearer a b" })).toBeNull();
  });
});
