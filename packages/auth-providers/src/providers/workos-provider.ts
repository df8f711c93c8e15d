import type { ProviderOptions } from "../base-provider.js";
import { settingsProblem, setting } from "../config/settings-reader.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { ADMIN_COMMON_SETTINGS, adminTimeoutOf } from "./user-management/admin-settings.js";
import { type UserOperations, attachUserOperations } from "./user-management/user-operations.js";
import { createWorkOSUserClient } from "./user-management/workos-users.js";
import { type VendorCommonSettings, createVendorProvider, originOf } from "./vendor-provider.js";

/** Settings of the `workos` type. */
export interface WorkOSProviderSettings extends VendorCommonSettings {
  type?: "workos";
  /** AuthKit client id (`client_…`): JWKS `<apiUrl>/sso/jwks/<clientId>`. */
  clientId?: string;
  /** Default `https://api.workos.com`. */
  apiUrl?: string;
  /** Secret API key (`sk_…`): enables the user operations (User Management API at `apiUrl`). */
  apiKey?: string;
  /** Organization whose membership holds the roles `updateUserRoles` sets. */
  organizationId?: string;
  /** Timeout of one User Management request. Default 10 000. */
  adminTimeoutMs?: number;
}

/**
 * WorkOS AuthKit access tokens (RS256). Accepted issuers: `<apiUrl>` and
 * `<apiUrl>/user_management/<clientId>` (both appear in AuthKit tokens). `sid` is the AuthKit
 * session; roles from `role` and `roles`, permissions from `permissions`; `org_id` stays in the claims.
 *
 * @example
 * createWorkOSProvider({ clientId: "client_01HXYZ" });
 */
export function createWorkOSProvider(settings: WorkOSProviderSettings, options: ProviderOptions = {}): JwtTokenProvider & UserOperations {
  const provider = createVendorProvider(
    "workos",
    settings,
    {
      clientId: setting.string(),
      apiUrl: setting.url(),
      apiKey: setting.string(),
      organizationId: setting.string(),
      ...ADMIN_COMMON_SETTINGS,
    },
    (checked) => {
      if (!checked.clientId && !checked.jwksUrl) throw settingsProblem("workos", "auth.clientId", "required (or jwksUrl)");
      const api = originOf(checked.apiUrl ?? "https://api.workos.com");
      return {
        verifier: checked.clientId
          ? {
              jwksUrl: `${api}/sso/jwks/${encodeURIComponent(checked.clientId)}`,
              issuer: [api, `${api}/user_management/${checked.clientId}`],
            }
          : {},
        profile: { defaultRoleClaims: ["role", "roles"], defaultPermissionClaims: ["permissions"] },
      };
    },
    options,
  );
  if (!settings.apiKey) return provider;
  return attachUserOperations(
    provider,
    createWorkOSUserClient({
      apiUrl: originOf(settings.apiUrl ?? "https://api.workos.com"),
      apiKey: settings.apiKey,
      organizationId: settings.organizationId,
      timeoutMs: adminTimeoutOf(settings),
    }),
  );
}
