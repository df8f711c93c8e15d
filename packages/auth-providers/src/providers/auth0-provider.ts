import type { ProviderOptions } from "../base-provider.js";
import { collectClaims } from "../claims.js";
import { settingsProblem, setting } from "../config/settings-reader.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { ADMIN_COMMON_SETTINGS, adminCredentialsGiven, adminTimeoutOf } from "./user-management/admin-settings.js";
import { createAuth0UserClient } from "./user-management/auth0-users.js";
import { type UserOperations, attachUserOperations } from "./user-management/user-operations.js";
import { type VendorCommonSettings, createVendorProvider, originOf } from "./vendor-provider.js";

/** Settings of the `auth0` type. */
export interface Auth0ProviderSettings extends VendorCommonSettings {
  type?: "auth0";
  /** Tenant domain (`example.us.auth0.com` or a custom domain). Issuer `https://<domain>/`, JWKS `https://<domain>/.well-known/jwks.json`. */
  domain?: string;
  /** Namespace of custom claims set by an Action: roles are read from `<namespace>/roles` too. */
  namespace?: string;
  /** Client id of a machine-to-machine application authorized for the Management API: enables the user operations. */
  managementClientId?: string;
  managementClientSecret?: string;
  /** Management API origin (`/oauth/token`, `/api/v2/`). Default `https://<domain>`. */
  managementApiUrl?: string;
  /** API identifier whose permissions `updateUserPermissions` assigns. Default: the first `audience`. */
  permissionsApi?: string;
  /** Timeout of one Management API request. Default 10 000. */
  adminTimeoutMs?: number;
}

/**
 * Auth0 access tokens (RS256). Permissions from Auth0 RBAC's `permissions` claim and the
 * `scope`; roles from `roles` and `<namespace>/roles` (Auth0 puts roles in tokens only
 * through a namespaced custom claim).
 *
 * @example
 * createAuth0Provider({ domain: "example.us.auth0.com", audience: "https://api.example.com", namespace: "https://example.com" });
 * // With Management API credentials, the user operations exist too:
 * const auth0 = createAuth0Provider({ domain: "example.us.auth0.com", managementClientId: "m2m", managementClientSecret: "…" });
 * await auth0.getUser?.("auth0|123");
 */
export function createAuth0Provider(settings: Auth0ProviderSettings, options: ProviderOptions = {}): JwtTokenProvider & UserOperations {
  const provider = createVendorProvider(
    "auth0",
    settings,
    {
      domain: setting.string(),
      namespace: setting.string(),
      managementClientId: setting.string(),
      managementClientSecret: setting.string(),
      managementApiUrl: setting.url(),
      permissionsApi: setting.string(),
      ...ADMIN_COMMON_SETTINGS,
    },
    (checked) => {
      if (!checked.domain && !(checked.jwksUrl && checked.issuer))
        throw settingsProblem("auth0", "auth.domain", "required (or both jwksUrl and issuer)");
      const origin = checked.domain ? originOf(checked.domain) : undefined;
      const namespace = checked.namespace?.replace(/\/+$/, "");
      return {
        verifier: origin ? { jwksUrl: `${origin}/.well-known/jwks.json`, issuer: `${origin}/` } : {},
        profile: {
          defaultRoleClaims: ["roles", ...(namespace ? [`${namespace}/roles`] : [])],
          defaultPermissionClaims: ["permissions"],
          derive: (claims) => ({ permissions: collectClaims(claims, ["scope"]) }),
        },
      };
    },
    options,
  );
  if (!adminCredentialsGiven("auth0", settings, ["managementClientId", "managementClientSecret"])) return provider;
  if (!settings.domain && !settings.managementApiUrl) throw settingsProblem("auth0", "auth.managementApiUrl", "required without domain");
  const tenant = settings.domain ? originOf(settings.domain) : originOf(settings.managementApiUrl as string);
  const audience = Array.isArray(settings.audience) ? settings.audience[0] : settings.audience;
  return attachUserOperations(
    provider,
    createAuth0UserClient({
      apiUrl: settings.managementApiUrl ?? tenant,
      audience: `${tenant}/api/v2/`,
      clientId: settings.managementClientId as string,
      clientSecret: settings.managementClientSecret as string,
      permissionsApi: settings.permissionsApi ?? audience,
      timeoutMs: adminTimeoutOf(settings),
    }),
  );
}
