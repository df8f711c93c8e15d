import type { ProviderOptions } from "../base-provider.js";
import { collectClaims, readClaim, stringsFrom } from "../claims.js";
import { settingsProblem, setting } from "../config/settings-reader.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { ADMIN_COMMON_SETTINGS, adminCredentialsGiven, adminTimeoutOf } from "./user-management/admin-settings.js";
import { createKeycloakUserClient } from "./user-management/keycloak-users.js";
import { type UserOperations, attachUserOperations } from "./user-management/user-operations.js";
import { type VendorCommonSettings, createVendorProvider, originOf } from "./vendor-provider.js";

/** Settings of the `keycloak` type. */
export interface KeycloakProviderSettings extends VendorCommonSettings {
  type?: "keycloak";
  /** Server URL (`https://sso.example.com`, or with `/auth` on old versions). */
  url?: string;
  /** Issuer `<url>/realms/<realm>`, JWKS `<issuer>/protocol/openid-connect/certs`. */
  realm?: string;
  /** Client whose `resource_access.<clientId>.roles` are added to the realm roles. */
  clientId?: string;
  /** Confidential client with a service account holding `view-users` and `manage-users` (realm-management): enables the user operations. */
  adminClientId?: string;
  adminClientSecret?: string;
  /** Server URL of the Admin REST API and the token endpoint. Default `url`. */
  adminUrl?: string;
  /** Timeout of one Admin REST request. Default 10 000. */
  adminTimeoutMs?: number;
}

/** Authorization Services permissions (`authorization.permissions[].rsname/scopes`) as `resource:scope`. */
function umaPermissions(claims: Record<string, unknown>): string[] {
  const entries = readClaim(claims, "authorization.permissions");
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry) => {
    const name = (entry as { rsname?: unknown })?.rsname;
    if (typeof name !== "string") return [];
    const scopes = stringsFrom((entry as { scopes?: unknown }).scopes);
    return scopes.length === 0 ? [name] : scopes.map((scope) => `${name}:${scope}`);
  });
}

/**
 * Keycloak access tokens. Roles from `realm_access.roles` plus the client roles of
 * `resource_access.<clientId>.roles`; permissions from `permissions`, the `scope`, and
 * Authorization Services grants (`rsname:scope`). The name falls back to `preferred_username`.
 *
 * @example
 * createKeycloakProvider({ url: "https://sso.example.com", realm: "conduit", clientId: "conduit-api" });
 */
export function createKeycloakProvider(
  settings: KeycloakProviderSettings,
  options: ProviderOptions = {},
): JwtTokenProvider & UserOperations {
  const provider = createVendorProvider(
    "keycloak",
    settings,
    {
      url: setting.url(),
      realm: setting.string(),
      clientId: setting.string(),
      adminClientId: setting.string(),
      adminClientSecret: setting.string(),
      adminUrl: setting.url(),
      ...ADMIN_COMMON_SETTINGS,
    },
    (checked) => {
      if (!(checked.url && checked.realm) && !(checked.jwksUrl && checked.issuer)) {
        throw settingsProblem("keycloak", "auth.realm", "url and realm are required (or both jwksUrl and issuer)");
      }
      const issuer = checked.url && checked.realm ? `${originOf(checked.url)}/realms/${encodeURIComponent(checked.realm)}` : undefined;
      const clientId = checked.clientId;
      return {
        verifier: issuer ? { jwksUrl: `${issuer}/protocol/openid-connect/certs`, issuer } : {},
        profile: {
          defaultRoleClaims: ["realm_access.roles"],
          defaultPermissionClaims: ["permissions"],
          derive: (claims) => {
            const access = readClaim(claims, "resource_access");
            const client =
              clientId && typeof access === "object" && access !== null && Object.hasOwn(access, clientId)
                ? (access as Record<string, unknown>)[clientId]
                : undefined;
            return {
              roles: stringsFrom((client as { roles?: unknown } | undefined)?.roles),
              permissions: [...collectClaims(claims, ["scope"]), ...umaPermissions(claims)],
            };
          },
        },
      };
    },
    { ...options },
  );
  if (!adminCredentialsGiven("keycloak", settings, ["adminClientId", "adminClientSecret"])) return provider;
  const adminUrl = settings.adminUrl ?? settings.url;
  if (!adminUrl || !settings.realm)
    throw settingsProblem("keycloak", "auth.realm", "url (or adminUrl) and realm are required for the user operations");
  return attachUserOperations(
    provider,
    createKeycloakUserClient({
      url: originOf(adminUrl),
      realm: settings.realm,
      clientId: settings.adminClientId as string,
      clientSecret: settings.adminClientSecret as string,
      timeoutMs: adminTimeoutOf(settings),
    }),
  );
}
