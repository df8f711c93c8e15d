import type { ProviderOptions } from "../base-provider.js";
import { listOf, settingsProblem, setting } from "../config/settings-reader.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { ADMIN_COMMON_SETTINGS, adminTimeoutOf } from "./user-management/admin-settings.js";
import { createClerkUserClient } from "./user-management/clerk-users.js";
import { type UserOperations, attachUserOperations } from "./user-management/user-operations.js";
import { type VendorCommonSettings, createVendorProvider, originOf } from "./vendor-provider.js";

/** Settings of the `clerk` type. */
export interface ClerkProviderSettings extends VendorCommonSettings {
  type?: "clerk";
  /** Frontend API URL (`https://clerk.example.com`, `https://<slug>.clerk.accounts.dev`): the issuer; JWKS at `/.well-known/jwks.json`. */
  frontendApi?: string;
  /** Secret key: the JWKS is fetched from the Backend API (`<apiUrl>/v1/jwks`) with it, and it enables the user operations. */
  secretKey?: string;
  /** Backend API origin. Default `https://api.clerk.com`. */
  apiUrl?: string;
  /** Accepted `azp` (origins of your frontends); a token from another origin is refused. */
  authorizedParties?: string | string[];
  /** Timeout of one Backend API request of the user operations. Default 10 000. */
  adminTimeoutMs?: number;
}

/**
 * Clerk session tokens (RS256). `sid` is Clerk's session id (sessions bind to it); roles from
 * `org_role` / `o.rol` (v2 tokens), `roles` and `public_metadata.roles`; permissions from
 * `org_permissions` / `o.per` and `permissions`. `azp` is checked against `authorizedParties`.
 *
 * @example
 * createClerkProvider({ frontendApi: "https://clerk.example.com", authorizedParties: ["https://app.example.com"] });
 */
export function createClerkProvider(settings: ClerkProviderSettings, options: ProviderOptions = {}): JwtTokenProvider & UserOperations {
  const provider = createVendorProvider(
    "clerk",
    settings,
    {
      frontendApi: setting.url(),
      secretKey: setting.string(),
      apiUrl: setting.url(),
      authorizedParties: setting.strings(),
      ...ADMIN_COMMON_SETTINGS,
    },
    (checked) => {
      if (!checked.frontendApi && !checked.secretKey && !checked.jwksUrl)
        throw settingsProblem("clerk", "auth.frontendApi", "required (or secretKey, or jwksUrl)");
      const frontend = checked.frontendApi ? originOf(checked.frontendApi) : undefined;
      const parties = listOf(checked.authorizedParties);
      const verifier =
        checked.secretKey && !frontend
          ? {
              jwksUrl: `${originOf(checked.apiUrl ?? "https://api.clerk.com")}/v1/jwks`,
              jwksHeaders: { authorization: `Bearer ${checked.secretKey}` },
            }
          : frontend
            ? { jwksUrl: `${frontend}/.well-known/jwks.json`, issuer: frontend }
            : {};
      return {
        verifier,
        profile: {
          defaultRoleClaims: ["roles", "org_role", "o.rol", "public_metadata.roles", "metadata.roles"],
          defaultPermissionClaims: ["permissions", "org_permissions", "o.per"],
          check: (claims) =>
            parties.length > 0 && typeof claims.azp === "string" && !parties.includes(claims.azp)
              ? "Token was issued to another party (azp)"
              : undefined,
        },
      };
    },
    options,
  );
  if (!settings.secretKey) return provider;
  return attachUserOperations(
    provider,
    createClerkUserClient({
      apiUrl: originOf(settings.apiUrl ?? "https://api.clerk.com"),
      secretKey: settings.secretKey,
      timeoutMs: adminTimeoutOf(settings),
    }),
  );
}
