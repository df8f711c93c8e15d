import { describe, expect, expectTypeOf, it } from "vitest";
import type { JwtProviderSettings } from "../providers/jwt-provider.js";
import { type AuthProviderConfig, AuthProviderRegistry, type BuiltinProviderConfig, createAuthProvider } from "./auth-provider-registry.js";
import { type BuiltinProviderSettings, defineAuthProvider } from "./provider-definitions.js";
import { CustomProvider } from "../providers/custom-provider.js";

// Compiled by `tsc --noEmit -p .` (the package's typecheck): each `@ts-expect-error` fails the
// build when the line below it stops being a type error.
describe("provider configs are typed per provider", () => {
  it("a misspelt key of a built-in type fails type-checking (and is refused at runtime)", () => {
    expect(() =>
      createAuthProvider({
        type: "jwt",
        secret: "a-shared-secret-of-enough-length",
        // @ts-expect-error `isuer` is not a jwt setting
        isuer: "https://id.example.com",
      }),
    ).toThrow(/auth\.isuer: unknown key/);
    expect(() =>
      createAuthProvider({
        type: "oidc",
        issuer: "https://login.example.com",
        // @ts-expect-error `clientSecrett` is not an oauth2 setting; the alias `oidc` takes oauth2's settings
        clientSecrett: "x",
      }),
    ).toThrow(/auth\.clientSecrett: unknown key/);
    // @ts-expect-error a setting of the wrong type
    expect(() => createAuthProvider({ type: "cognito", region: "eu-west-1", userPoolId: "p", tokenUse: "refresh" })).toThrow(
      /auth\.tokenUse: expected "access", "id" or "any"/,
    );
  });

  it("each type's settings are its factory's, aliases included", () => {
    expectTypeOf<BuiltinProviderSettings<"jwt">>().toEqualTypeOf<Omit<JwtProviderSettings, "type">>();
    expectTypeOf<AuthProviderConfig<"jwks">>().toMatchTypeOf<{ type: "jwks"; issuer?: string | string[] }>();
    expectTypeOf<Extract<BuiltinProviderConfig, { type: "authkit" }>>().toHaveProperty("clientId");
    expectTypeOf<AuthProviderConfig<"openid-connect">>().not.toHaveProperty("realm");
  });

  it("a type you registered takes any settings; a config read from a file is loosely typed", () => {
    const registry = new AuthProviderRegistry([]).register(
      defineAuthProvider({
        type: "in-house",
        aliases: ["ih"],
        metadata: { displayName: "In-house", description: "test" },
        capabilities: ["custom-validation"],
        create: (settings: { validate: () => null }) => new CustomProvider(settings),
      }),
    );
    expect(registry.create({ type: "ih", validate: () => null }).type).toBe("custom");
    const fromFile: AuthProviderConfig = JSON.parse('{"type":"jwt","secret":"a-shared-secret-of-enough-length"}');
    expect(createAuthProvider(fromFile).type).toBe("jwt");
  });
});
