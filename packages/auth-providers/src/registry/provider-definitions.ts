import type { BaseAuthProvider, ProviderOptions } from "../base-provider.js";
import { createAuth0Provider } from "../providers/auth0-provider.js";
import { createBetterAuthProvider } from "../providers/better-auth-provider.js";
import { createClerkProvider } from "../providers/clerk-provider.js";
import { createCognitoProvider } from "../providers/cognito-provider.js";
import { createCustomProvider } from "../providers/custom-provider.js";
import { createFirebaseProvider } from "../providers/firebase-provider.js";
import { createJwtProvider } from "../providers/jwt-provider.js";
import { createKeycloakProvider } from "../providers/keycloak-provider.js";
import { createOAuth2Provider } from "../providers/oauth2-provider.js";
import { createSupabaseProvider } from "../providers/supabase-provider.js";
import { createWorkOSProvider } from "../providers/workos-provider.js";
import type { AuthCapability, ProviderMetadata } from "../types.js";

/**
 * One provider type: its canonical name, aliases, what it can do, and its factory. The type
 * parameters carry the names and the settings type into `AuthProviderConfig`.
 */
export interface AuthProviderDefinition<Type extends string = string, Settings extends object = object, Alias extends string = string> {
  type: Type;
  aliases: readonly Alias[];
  metadata: ProviderMetadata;
  capabilities: readonly AuthCapability[];
  /** Checks `settings` at runtime too (a config file is not type-checked). */
  create(settings: Settings, options?: ProviderOptions): BaseAuthProvider;
}

/**
 * A definition with its name, aliases and settings type kept literal, so configs of it are
 * checked per type (as better-auth types its social providers).
 *
 * @example
 * const inHouse = defineAuthProvider({ type: "in-house", aliases: ["ih"], metadata, capabilities: [], create: createInHouseProvider });
 */
export function defineAuthProvider<const Type extends string, Settings extends object, const Alias extends string = never>(
  definition: AuthProviderDefinition<Type, Settings, Alias>,
): AuthProviderDefinition<Type, Settings, Alias> {
  return definition;
}

const JWT_VENDOR: AuthCapability[] = ["jwt-validation", "jwks", "session-management", "role-mapping", "sso"];
/** A JWT vendor whose admin API backs the user operations (`getUser`, …) once admin credentials are configured. */
const JWT_VENDOR_WITH_USERS: AuthCapability[] = [...JWT_VENDOR, "user-management"];

/**
 * The eleven built-in provider types, one factory each (from which the type list and the
 * registry are derived).
 */
export const builtinProviderDefinitions = {
  custom: defineAuthProvider({
    type: "custom",
    aliases: [],
    metadata: { displayName: "Custom", description: "Your own token check (a function, or a module in config files)." },
    capabilities: ["custom-validation", "session-management"],
    create: createCustomProvider,
  }),
  jwt: defineAuthProvider({
    type: "jwt",
    aliases: ["jwks"],
    metadata: {
      displayName: "JWT",
      description: "Any JWT issuer: shared secret, public key or JWKS URL (jose).",
      documentationUrl: "https://www.rfc-editor.org/rfc/rfc7519",
    },
    capabilities: ["jwt-validation", "jwks", "session-management", "role-mapping"],
    create: createJwtProvider,
  }),
  oauth2: defineAuthProvider({
    type: "oauth2",
    aliases: ["oauth", "oidc", "openid-connect"],
    metadata: {
      displayName: "OAuth 2.0 / OpenID Connect",
      description: "Token introspection (RFC 7662) or OIDC userinfo, with discovery.",
      documentationUrl: "https://www.rfc-editor.org/rfc/rfc7662",
    },
    capabilities: ["token-introspection", "userinfo", "oidc-discovery", "session-management", "sso", "role-mapping"],
    create: createOAuth2Provider,
  }),
  auth0: defineAuthProvider({
    type: "auth0",
    aliases: [],
    metadata: {
      displayName: "Auth0",
      description: "Auth0 access tokens from the tenant domain.",
      documentationUrl: "https://auth0.com/docs/secure/tokens/access-tokens/validate-access-tokens",
    },
    capabilities: JWT_VENDOR_WITH_USERS,
    create: createAuth0Provider,
  }),
  clerk: defineAuthProvider({
    type: "clerk",
    aliases: [],
    metadata: {
      displayName: "Clerk",
      description: "Clerk session tokens from the Frontend API or the Backend API JWKS.",
      documentationUrl: "https://clerk.com/docs/backend-requests/manual-jwt",
    },
    capabilities: JWT_VENDOR_WITH_USERS,
    create: createClerkProvider,
  }),
  firebase: defineAuthProvider({
    type: "firebase",
    aliases: ["firebase-auth", "google-identity-platform"],
    metadata: {
      displayName: "Firebase Authentication",
      description: "Firebase ID tokens for a project id.",
      documentationUrl: "https://firebase.google.com/docs/auth/admin/verify-id-tokens",
    },
    capabilities: JWT_VENDOR_WITH_USERS,
    create: createFirebaseProvider,
  }),
  supabase: defineAuthProvider({
    type: "supabase",
    aliases: ["supabase-auth"],
    metadata: {
      displayName: "Supabase Auth",
      description: "Supabase access tokens by project URL (JWKS) or legacy JWT secret.",
      documentationUrl: "https://supabase.com/docs/guides/auth/jwts",
    },
    capabilities: JWT_VENDOR_WITH_USERS,
    create: createSupabaseProvider,
  }),
  cognito: defineAuthProvider({
    type: "cognito",
    aliases: ["aws-cognito", "amazon-cognito"],
    metadata: {
      displayName: "Amazon Cognito",
      description: "Cognito user pool access or ID tokens by region and pool id.",
      documentationUrl:
        "https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-tokens-verifying-a-jwt.html",
    },
    capabilities: JWT_VENDOR_WITH_USERS,
    create: createCognitoProvider,
  }),
  keycloak: defineAuthProvider({
    type: "keycloak",
    aliases: ["red-hat-sso"],
    metadata: {
      displayName: "Keycloak",
      description: "Keycloak realm tokens by server URL and realm.",
      documentationUrl: "https://www.keycloak.org/docs/latest/securing_apps/",
    },
    capabilities: JWT_VENDOR_WITH_USERS,
    create: createKeycloakProvider,
  }),
  "better-auth": defineAuthProvider({
    type: "better-auth",
    aliases: ["betterauth"],
    metadata: {
      displayName: "Better Auth",
      description: "JWTs of Better Auth's jwt() plugin by base URL.",
      documentationUrl: "https://better-auth.com/docs/plugins/jwt",
    },
    capabilities: ["jwt-validation", "jwks", "session-management", "role-mapping"],
    create: createBetterAuthProvider,
  }),
  workos: defineAuthProvider({
    type: "workos",
    aliases: ["authkit", "workos-authkit"],
    metadata: {
      displayName: "WorkOS AuthKit",
      description: "AuthKit access tokens by client id.",
      documentationUrl: "https://workos.com/docs/reference/authkit/session-tokens",
    },
    capabilities: JWT_VENDOR_WITH_USERS,
    create: createWorkOSProvider,
  }),
};

type Builtins = typeof builtinProviderDefinitions;

/** Canonical names of the built-in types. */
export type BuiltinProviderType = keyof Builtins;

/** A built-in type's canonical name or one of its aliases (`oidc`, `jwks`, …). */
export type BuiltinProviderName = { [K in BuiltinProviderType]: K | Builtins[K]["aliases"][number] }[BuiltinProviderType];

/** The canonical type a built-in name or alias stands for. */
export type CanonicalProviderType<Name extends string> = {
  [K in BuiltinProviderType]: Name extends K | Builtins[K]["aliases"][number] ? K : never;
}[BuiltinProviderType];

/** The settings a built-in type takes (its factory's first parameter, without `type`). */
export type BuiltinProviderSettings<K extends BuiltinProviderType> = Omit<Parameters<Builtins[K]["create"]>[0], "type">;

export const BUILTIN_PROVIDER_TYPES = Object.keys(builtinProviderDefinitions) as BuiltinProviderType[];
