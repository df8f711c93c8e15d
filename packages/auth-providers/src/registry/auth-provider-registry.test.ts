import { describe, expect, it } from "vitest";
import { AuthLookupError } from "../errors/registry-errors.js";
import { CustomProvider } from "../providers/custom-provider.js";
import { type AuthProviderConfig, AuthProviderRegistry, createAuthProvider } from "./auth-provider-registry.js";
import { BUILTIN_PROVIDER_TYPES, builtinProviderDefinitions } from "./provider-definitions.js";

describe("auth provider registry", () => {
  it("holds the eleven types with aliases, metadata and capabilities", () => {
    expect(BUILTIN_PROVIDER_TYPES).toEqual([
      "custom",
      "jwt",
      "oauth2",
      "auth0",
      "clerk",
      "firebase",
      "supabase",
      "cognito",
      "keycloak",
      "better-auth",
      "workos",
    ]);
    const registry = new AuthProviderRegistry();
    for (const alias of ["oauth", "oidc", "openid-connect", "OIDC"]) expect(registry.get(alias).type).toBe("oauth2");
    expect(registry.resolveType("authkit")).toBe("workos");
    for (const definition of registry.list()) {
      expect(definition.metadata.displayName).not.toBe("");
      expect(definition.capabilities.length).toBeGreaterThan(0);
    }
  });

  it("claims user-management exactly for the providers whose user operations exist", () => {
    const operations = ["getUser", "getUserByEmail", "updateUserMetadata", "updateUserRoles", "updateUserPermissions"] as const;
    // The admin credentials each vendor needs for its user operations; a type missing here gets
    // none, so a flag claimed without a working implementation fails below, as does an
    // implementation the flag does not admit.
    const adminSettings: Record<string, Record<string, unknown>> = {
      auth0: { domain: "tenant.example.auth0.com", managementClientId: "m2m", managementClientSecret: "secret" },
      clerk: { secretKey: "sk_test_1" },
      cognito: { region: "eu-west-1", userPoolId: "eu-west-1_AbC", accessKeyId: "AKIA1", secretAccessKey: "secret" },
      firebase: { projectId: "my-project", serviceAccount: { client_email: "a@my-project.iam.gserviceaccount.com", private_key: "pem" } },
      workos: { clientId: "client_1", apiKey: "sk_test_1" },
      supabase: { url: "https://abcd.supabase.co", serviceRoleKey: "service-role" },
      keycloak: { url: "https://sso.example.com", realm: "conduit", adminClientId: "admin", adminClientSecret: "secret" },
    };
    const registry = new AuthProviderRegistry();
    for (const definition of registry.list()) {
      const settings: Record<string, unknown> = {
        type: definition.type,
        jwksUrl: "https://id.example.com/jwks",
        issuer: "https://id.example.com/",
        ...adminSettings[definition.type],
      };
      let provider: Record<string, unknown>;
      try {
        provider = createAuthProvider(settings as never, { sessions: false }) as unknown as Record<string, unknown>;
      } catch {
        // A type whose settings differ (custom, oauth2...) must not claim the flag either.
        expect(definition.capabilities, definition.type).not.toContain("user-management");
        continue;
      }
      const implemented = operations.filter((name) => typeof provider[name] === "function");
      const claims = definition.capabilities.includes("user-management");
      expect(claims, definition.type).toBe(implemented.length > 0);
      // At least the reads: a vendor claiming user management answers getUser and getUserByEmail.
      if (claims) expect(implemented, definition.type).toEqual(expect.arrayContaining(["getUser", "getUserByEmail"]));
    }
  });

  it("lists by capability", () => {
    const registry = new AuthProviderRegistry();
    expect(registry.listByCapability("token-introspection").map((definition) => definition.type)).toEqual(["oauth2"]);
    expect(registry.listByCapability("jwt-validation").map((definition) => definition.type)).toEqual([
      "jwt",
      "auth0",
      "clerk",
      "firebase",
      "supabase",
      "cognito",
      "keycloak",
      "better-auth",
      "workos",
    ]);
    expect(registry.listByCapability("session-management")).toHaveLength(11);
    expect(registry.listByCapability("teleportation")).toEqual([]);
  });

  it("fails lookups with numbered codes (001 = not found)", () => {
    const registry = new AuthProviderRegistry();
    const codeOf = (work: () => unknown) => {
      try {
        work();
      } catch (error) {
        expect(AuthLookupError.isInstance(error)).toBe(true);
        return (error as AuthLookupError).code;
      }
      throw new Error("expected a failure");
    };
    expect(codeOf(() => registry.get("okta"))).toBe("AUTH_REGISTRY-001");
    expect(codeOf(() => registry.register(builtinProviderDefinitions.jwt))).toBe("AUTH_REGISTRY-002");
    expect(codeOf(() => registry.register({ ...builtinProviderDefinitions.jwt, type: "" }))).toBe("AUTH_REGISTRY-003");
    expect(codeOf(() => registry.create({ type: "okta" }))).toBe("AUTH_FACTORY-001");
    expect(codeOf(() => registry.create({} as never))).toBe("AUTH_FACTORY-002");
    const broken = new AuthProviderRegistry([
      {
        ...builtinProviderDefinitions.custom,
        create: () => {
          throw new RangeError("boom");
        },
      },
    ]);
    expect(codeOf(() => broken.create({ type: "custom" }))).toBe("AUTH_FACTORY-003");
  });

  it("resolves aliases before creating, and passes settings errors through with their issues", () => {
    const provider = createAuthProvider({ type: "oidc", issuer: "https://login.example.com" });
    expect(provider.type).toBe("oauth2");
    // As read from a config file (a typed literal with this key fails type-checking: see registry-types.test.ts).
    const fromFile: AuthProviderConfig = { type: "keycloak", url: "https://sso.example.com", realm: "r", clientSecret: "hidden-value" };
    expect(() => createAuthProvider(fromFile)).toThrow(
      expect.objectContaining({
        code: "INVALID_CONFIG",
        provider: "keycloak",
        details: { issues: [{ path: "auth.clientSecret", message: "unknown key" }] },
      }),
    );
    try {
      createAuthProvider(fromFile);
    } catch (error) {
      expect(JSON.stringify(error)).not.toContain("hidden-value");
      expect((error as Error).message).not.toContain("hidden-value");
    }
  });

  it("registers a custom type and caches health checks", async () => {
    const registry = new AuthProviderRegistry([], { healthCacheTtlMs: 60_000 });
    registry.register({
      type: "in-house",
      aliases: ["ih"],
      metadata: { displayName: "In-house", description: "test" },
      capabilities: ["custom-validation"],
      create: () => new CustomProvider({ validate: () => null }),
    });
    const provider = registry.create({ type: "ih" });
    let probes = 0;
    const original = provider.healthCheck.bind(provider);
    provider.healthCheck = async () => {
      probes++;
      return original();
    };
    const [first, second] = await Promise.all([registry.healthCheck(provider), registry.healthCheck(provider)]);
    expect(first).toEqual(second);
    await registry.healthCheck(provider);
    expect(probes).toBe(1);
    await registry.healthCheck(provider, { fresh: true });
    expect(probes).toBe(2);
  });
});
