import type { ProviderOptions } from "../base-provider.js";
import { settingsProblem } from "../config/settings-reader.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { type VendorCommonSettings, createVendorProvider } from "./vendor-provider.js";

/** Google's public keys for Firebase ID tokens, as a JWKS. */
export const FIREBASE_JWKS_URL = "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com";

/** Settings of the `firebase` type. */
export interface FirebaseProviderSettings extends VendorCommonSettings {
  type?: "firebase";
  /** Issuer `https://securetoken.google.com/<projectId>`, audience `<projectId>`. */
  projectId?: string;
}

/**
 * Firebase Authentication ID tokens (RS256, Google's securetoken keys). Roles and
 * permissions come from custom claims (`roles` or `role`, `permissions`) set with the
 * Admin SDK's `setCustomUserClaims`.
 *
 * @example
 * createFirebaseProvider({ projectId: "my-project" });
 */
export function createFirebaseProvider(settings: FirebaseProviderSettings, options: ProviderOptions = {}): JwtTokenProvider {
  return createVendorProvider(
    "firebase",
    settings,
    { projectId: { kind: "string" } },
    (checked) => {
      if (!checked.projectId) throw settingsProblem("firebase", "auth.projectId", "required");
      return {
        verifier: {
          jwksUrl: FIREBASE_JWKS_URL,
          issuer: `https://securetoken.google.com/${checked.projectId}`,
          audience: checked.projectId,
          algorithms: ["RS256"],
          requiredClaims: ["exp", "sub"],
        },
        profile: { defaultRoleClaims: ["roles", "role"], defaultPermissionClaims: ["permissions"] },
      };
    },
    options,
  );
}
