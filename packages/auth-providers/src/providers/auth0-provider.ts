import type { ProviderOptions } from "../base-provider.js";
import { collectClaims } from "../claims.js";
import { settingsProblem } from "../config/settings-reader.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { type VendorCommonSettings, createVendorProvider, originOf } from "./vendor-provider.js";

/** Settings of the `auth0` type. */
export interface Auth0ProviderSettings extends VendorCommonSettings {
  type?: "auth0";
  /** Tenant domain (`example.us.auth0.com` or a custom domain). Issuer `https://<domain>/`, JWKS `https://<domain>/.well-known/jwks.json`. */
  domain?: string;
  /** Namespace of custom claims set by an Action: roles are read from `<namespace>/roles` too. */
  namespace?: string;
}

/**
 * Auth0 access tokens (RS256). Permissions from Auth0 RBAC's `permissions` claim and the
 * `scope`; roles from `roles` and `<namespace>/roles` (Auth0 puts roles in tokens only
 * through a namespaced custom claim).
 *
 * @example
 * createAuth0Provider({ domain: "example.us.auth0.com", audience: "https://api.example.com", namespace: "https://example.com" });
 */
export function createAuth0Provider(settings: Auth0ProviderSettings, options: ProviderOptions = {}): JwtTokenProvider {
  return createVendorProvider(
    "auth0",
    settings,
    { domain: { kind: "string" }, namespace: { kind: "string" } },
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
}
