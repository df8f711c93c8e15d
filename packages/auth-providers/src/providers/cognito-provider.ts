import type { ProviderOptions } from "../base-provider.js";
import { collectClaims } from "../claims.js";
import { listOf, settingsProblem, setting } from "../config/settings-reader.js";
import type { JwtTokenProvider } from "./jwt-token-provider.js";
import { ADMIN_COMMON_SETTINGS, adminCredentialsGiven, adminTimeoutOf } from "./user-management/admin-settings.js";
import { createCognitoUserClient } from "./user-management/cognito-users.js";
import { type UserOperations, attachUserOperations } from "./user-management/user-operations.js";
import { type VendorCommonSettings, createVendorProvider } from "./vendor-provider.js";

/** Settings of the `cognito` type. */
export interface CognitoProviderSettings extends VendorCommonSettings {
  type?: "cognito";
  /** e.g. `eu-west-1`. */
  region?: string;
  /** e.g. `eu-west-1_AbCdEf123`. Issuer `https://cognito-idp.<region>.amazonaws.com/<userPoolId>`, JWKS `<issuer>/.well-known/jwks.json`. */
  userPoolId?: string;
  /** App client id(s): an access token's `client_id` (an ID token's `aud`) must be one of them. */
  clientId?: string | string[];
  /** Which tokens are accepted. Default `access`. */
  tokenUse?: "access" | "id" | "any";
  /** IAM credentials allowed the `cognito-idp:Admin*` and `ListUsers` actions on the pool: enable the user operations. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** With temporary (STS) credentials. */
  sessionToken?: string;
  /** Cognito API endpoint. Default `https://cognito-idp.<region>.amazonaws.com`. */
  adminUrl?: string;
  /** Timeout of one Cognito API request. Default 10 000. */
  adminTimeoutMs?: number;
}

/**
 * Amazon Cognito user pool tokens (RS256). Checks `token_use` and the app client; roles from
 * `cognito:groups`, permissions from the OAuth `scope`; the user name from `cognito:username`
 * or `username`.
 *
 * @example
 * createCognitoProvider({ region: "eu-west-1", userPoolId: "eu-west-1_AbCdEf123", clientId: "4m1abc" });
 */
export function createCognitoProvider(settings: CognitoProviderSettings, options: ProviderOptions = {}): JwtTokenProvider & UserOperations {
  const provider = createVendorProvider(
    "cognito",
    settings,
    {
      region: setting.string(),
      userPoolId: setting.string(),
      clientId: setting.strings(),
      tokenUse: setting.oneOf(["access", "id", "any"]),
      accessKeyId: setting.string(),
      secretAccessKey: setting.string(),
      sessionToken: setting.string(),
      adminUrl: setting.url(),
      ...ADMIN_COMMON_SETTINGS,
    },
    (checked) => {
      if (!(checked.region && checked.userPoolId) && !(checked.jwksUrl && checked.issuer)) {
        throw settingsProblem("cognito", "auth.userPoolId", "region and userPoolId are required (or both jwksUrl and issuer)");
      }
      const tokenUse = checked.tokenUse ?? "access";
      const clients = listOf(checked.clientId);
      const issuer =
        checked.region && checked.userPoolId ? `https://cognito-idp.${checked.region}.amazonaws.com/${checked.userPoolId}` : undefined;
      return {
        verifier: issuer ? { jwksUrl: `${issuer}/.well-known/jwks.json`, issuer } : {},
        profile: {
          defaultRoleClaims: ["cognito:groups"],
          defaultPermissionClaims: ["permissions"],
          derive: (claims) => ({ permissions: collectClaims(claims, ["scope"]) }),
          check: (claims) => {
            const use = claims.token_use;
            if (tokenUse !== "any" && use !== tokenUse) return `Token is not an ${tokenUse} token`;
            if (use !== "access" && use !== "id") return "Token has no valid token_use";
            if (clients.length === 0) return undefined;
            const client = use === "access" ? claims.client_id : claims.aud;
            return typeof client === "string" && clients.includes(client) ? undefined : "Token was issued to another app client";
          },
        },
      };
    },
    options,
  );
  if (!adminCredentialsGiven("cognito", settings, ["accessKeyId", "secretAccessKey"])) return provider;
  const { region, userPoolId } = settings;
  if (!region || !userPoolId)
    throw settingsProblem("cognito", "auth.userPoolId", "region and userPoolId are required for the user operations");
  return attachUserOperations(
    provider,
    createCognitoUserClient({
      region,
      userPoolId,
      accessKeyId: settings.accessKeyId as string,
      secretAccessKey: settings.secretAccessKey as string,
      sessionToken: settings.sessionToken,
      endpoint: settings.adminUrl ?? `https://cognito-idp.${region}.amazonaws.com`,
      timeoutMs: adminTimeoutOf(settings),
    }),
  );
}
