import type { ProviderOptions } from "../base-provider.js";
import { settingsProblem, setting } from "../config/settings-reader.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { ADMIN_COMMON_SETTINGS, adminTimeoutOf } from "./user-management/admin-settings.js";
import { type FirebaseServiceAccount, createFirebaseUserClient } from "./user-management/firebase-users.js";
import { type UserOperations, attachUserOperations } from "./user-management/user-operations.js";
import { type VendorCommonSettings, createVendorProvider } from "./vendor-provider.js";

/** Google's public keys for Firebase ID tokens, as a JWKS. */
export const FIREBASE_JWKS_URL = "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com";

/** Settings of the `firebase` type. */
export interface FirebaseProviderSettings extends VendorCommonSettings {
  type?: "firebase";
  /** Issuer `https://securetoken.google.com/<projectId>`, audience `<projectId>`. */
  projectId?: string;
  /** A service account key (the JSON file's object, or its text) with the Firebase Authentication Admin role: enables the user operations. */
  serviceAccount?: FirebaseServiceAccount | string;
  /** Identity Toolkit origin. Default `https://identitytoolkit.googleapis.com`. (The token endpoint is the key's `token_uri`.) */
  adminUrl?: string;
  /** Timeout of one Identity Toolkit or token request. Default 10 000. */
  adminTimeoutMs?: number;
}

/** The service account key as an object, checked for the two fields the JWT bearer grant needs. */
function serviceAccountOf(value: FirebaseServiceAccount | string): FirebaseServiceAccount {
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw settingsProblem("firebase", "auth.serviceAccount", "expected the service account key JSON");
    }
  }
  const account = parsed as Partial<FirebaseServiceAccount>;
  for (const field of ["client_email", "private_key"] as const) {
    if (typeof account[field] !== "string" || account[field] === "")
      throw settingsProblem("firebase", `auth.serviceAccount.${field}`, "required");
  }
  return account as FirebaseServiceAccount;
}

/**
 * Firebase Authentication ID tokens (RS256, Google's securetoken keys). Roles and
 * permissions come from custom claims (`roles` or `role`, `permissions`) set with the
 * Admin SDK's `setCustomUserClaims`.
 *
 * @example
 * createFirebaseProvider({ projectId: "my-project" });
 */
export function createFirebaseProvider(
  settings: FirebaseProviderSettings,
  options: ProviderOptions = {},
): JwtTokenProvider & UserOperations {
  const provider = createVendorProvider(
    "firebase",
    settings,
    {
      projectId: setting.string(),
      serviceAccount: setting.stringOrObject<FirebaseServiceAccount>(),
      adminUrl: setting.url(),
      ...ADMIN_COMMON_SETTINGS,
    },
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
  if (!settings.serviceAccount) return provider;
  return attachUserOperations(
    provider,
    createFirebaseUserClient({
      projectId: settings.projectId as string,
      serviceAccount: serviceAccountOf(settings.serviceAccount),
      apiUrl: (settings.adminUrl ?? "https://identitytoolkit.googleapis.com").replace(/\/+$/, ""),
      timeoutMs: adminTimeoutOf(settings),
    }),
  );
}
