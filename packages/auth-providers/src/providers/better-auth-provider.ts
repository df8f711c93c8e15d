import type { ProviderOptions } from "../base-provider.js";
import { joinUrl, settingsProblem, setting } from "../config/settings-reader.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { type VendorCommonSettings, createVendorProvider, originOf } from "./vendor-provider.js";

/** Settings of the `better-auth` type. */
export interface BetterAuthProviderSettings extends VendorCommonSettings {
  type?: "better-auth";
  /** The app's Better Auth base URL (its `baseURL`): issuer and audience of its JWTs. */
  baseUrl?: string;
  /** Where Better Auth is mounted. Default `/api/auth`; JWKS at `<baseUrl><basePath>/jwks`. */
  basePath?: string;
}

/**
 * JWTs of Better Auth's `jwt()` plugin (EdDSA by default, any asymmetric algorithm its JWKS
 * names). Issuer and audience default to `baseUrl`, like the plugin's. Roles from `role`
 * (the admin plugin, possibly comma-separated) and `roles`; permissions from `permissions`.
 *
 * @example
 * createBetterAuthProvider({ baseUrl: "https://app.example.com" });
 */
export function createBetterAuthProvider(settings: BetterAuthProviderSettings, options: ProviderOptions = {}): JwtTokenProvider {
  return createVendorProvider(
    "better-auth",
    settings,
    { baseUrl: setting.url(), basePath: setting.string() },
    (checked) => {
      if (!checked.baseUrl && !checked.jwksUrl) throw settingsProblem("better-auth", "auth.baseUrl", "required (or jwksUrl)");
      const base = checked.baseUrl ? originOf(checked.baseUrl) : undefined;
      return {
        verifier: base ? { jwksUrl: joinUrl(joinUrl(base, checked.basePath ?? "/api/auth"), "/jwks"), issuer: base, audience: base } : {},
        profile: { defaultRoleClaims: ["role", "roles"], defaultPermissionClaims: ["permissions"] },
      };
    },
    options,
  );
}
