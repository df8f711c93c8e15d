import type { ProviderOptions } from "../base-provider.js";
import { settingsProblem } from "../config/settings-reader.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { type VendorCommonSettings, createVendorProvider, originOf } from "./vendor-provider.js";

/** Settings of the `workos` type. */
export interface WorkOSProviderSettings extends VendorCommonSettings {
  type?: "workos";
  /** AuthKit client id (`client_…`): JWKS `<apiUrl>/sso/jwks/<clientId>`. */
  clientId?: string;
  /** Default `https://api.workos.com`. */
  apiUrl?: string;
}

/**
 * WorkOS AuthKit access tokens (RS256). Accepted issuers: `<apiUrl>` and
 * `<apiUrl>/user_management/<clientId>` (both appear in AuthKit tokens). `sid` is the AuthKit
 * session; roles from `role` and `roles`, permissions from `permissions`; `org_id` stays in the claims.
 *
 * @example
 * createWorkOSProvider({ clientId: "client_01HXYZ" });
 */
export function createWorkOSProvider(settings: WorkOSProviderSettings, options: ProviderOptions = {}): JwtTokenProvider {
  return createVendorProvider(
    "workos",
    settings,
    { clientId: { kind: "string" }, apiUrl: { kind: "url" } },
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
}
