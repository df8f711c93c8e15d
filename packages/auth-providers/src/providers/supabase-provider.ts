import type { ProviderOptions } from "../base-provider.js";
import { settingsProblem, setting } from "../config/settings-reader.js";
import type { JwtVerifierOptions } from "../tokens/jwt-verifier.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { ADMIN_COMMON_SETTINGS, adminTimeoutOf } from "./user-management/admin-settings.js";
import { createSupabaseUserClient } from "./user-management/supabase-users.js";
import { type UserOperations, attachUserOperations } from "./user-management/user-operations.js";
import { type VendorCommonSettings, createVendorProvider, originOf } from "./vendor-provider.js";

/** Settings of the `supabase` type. */
export interface SupabaseProviderSettings extends VendorCommonSettings {
  type?: "supabase";
  /** Project URL (`https://<ref>.supabase.co`): issuer `<url>/auth/v1`, JWKS `<url>/auth/v1/.well-known/jwks.json`. */
  url?: string;
  /** The project's legacy JWT secret (HS256), for projects without asymmetric signing keys. */
  jwtSecret?: string;
  /** The project's `service_role` key: enables the user operations (Auth admin API). Server-side only. */
  serviceRoleKey?: string;
  /** Origin of the Auth admin API (`<adminUrl>/auth/v1/admin`). Default `url`. */
  adminUrl?: string;
  /** Timeout of one admin API request. Default 10 000. */
  adminTimeoutMs?: number;
}

/**
 * Supabase Auth access tokens: asymmetric keys through the project's JWKS, or the legacy
 * HS256 JWT secret. Audience `authenticated` by default. Roles from `app_metadata.roles`,
 * `user_role` (the custom access token hook's usual claim) and the Postgres `role`;
 * permissions from `app_metadata.permissions` and `permissions`.
 *
 * @example
 * createSupabaseProvider({ url: "https://abcd.supabase.co" });
 */
export function createSupabaseProvider(
  settings: SupabaseProviderSettings,
  options: ProviderOptions = {},
): JwtTokenProvider & UserOperations {
  const provider = createVendorProvider(
    "supabase",
    settings,
    {
      url: setting.url(),
      jwtSecret: setting.string(),
      serviceRoleKey: setting.string(),
      adminUrl: setting.url(),
      ...ADMIN_COMMON_SETTINGS,
    },
    (checked) => {
      if (!checked.url && !checked.jwtSecret && !checked.jwksUrl)
        throw settingsProblem("supabase", "auth.url", "required (or jwtSecret, or jwksUrl)");
      const auth = checked.url ? `${originOf(checked.url)}/auth/v1` : undefined;
      const verifier: JwtVerifierOptions = checked.jwtSecret
        ? { secret: checked.jwtSecret }
        : auth
          ? { jwksUrl: `${auth}/.well-known/jwks.json` }
          : {};
      if (auth) verifier.issuer = auth;
      verifier.audience = "authenticated";
      return {
        verifier,
        profile: {
          defaultRoleClaims: ["app_metadata.roles", "user_role", "role"],
          defaultPermissionClaims: ["app_metadata.permissions", "permissions"],
        },
      };
    },
    options,
  );
  if (!settings.serviceRoleKey) return provider;
  const adminUrl = settings.adminUrl ?? settings.url;
  if (!adminUrl) throw settingsProblem("supabase", "auth.url", "required (or adminUrl) for the user operations");
  return attachUserOperations(
    provider,
    createSupabaseUserClient({ url: originOf(adminUrl), serviceRoleKey: settings.serviceRoleKey, timeoutMs: adminTimeoutOf(settings) }),
  );
}
