import { SignJWT, importPKCS8 } from "jose";
import { ProviderAPIError, UserNotFoundError } from "../../errors/auth-errors.js";
import type { AuthenticatedUser } from "../../types.js";
import { adminJson, optionalString, recordOf, stringList } from "./admin-http.js";
import { cachedToken } from "./admin-token-cache.js";
import type { UserOperations } from "./user-operations.js";

/** The fields of a Google service account key file Conduit uses. */
export interface FirebaseServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  project_id?: string;
  /** Default `https://oauth2.googleapis.com/token`. */
  token_uri?: string;
}

/** How Conduit reaches the Identity Toolkit API of a Firebase project. */
export interface FirebaseAdminOptions {
  projectId: string;
  serviceAccount: FirebaseServiceAccount;
  /** Default `https://identitytoolkit.googleapis.com`. */
  apiUrl: string;
  timeoutMs: number;
}

const SCOPES = "https://www.googleapis.com/auth/identitytoolkit https://www.googleapis.com/auth/cloud-platform";

/** Custom claims are stored as a JSON string (`customAttributes`); unreadable ones count as none. */
function customClaimsOf(user: Record<string, unknown>): Record<string, unknown> {
  if (typeof user.customAttributes !== "string") return {};
  try {
    return recordOf(JSON.parse(user.customAttributes));
  } catch {
    return {};
  }
}

/**
 * An Identity Toolkit user → Conduit's user. Roles and permissions are the custom claims
 * `roles` (or `role`) and `permissions` (what the `firebase` type reads from ID tokens);
 * `metadata` holds the other custom claims.
 */
export function firebaseUserToConduit(record: unknown): AuthenticatedUser {
  const user = recordOf(record);
  const { roles, role, permissions, ...rest } = customClaimsOf(user);
  return {
    id: String(user.localId),
    ...optionalString("email", user.email),
    ...optionalString("name", user.displayName),
    roles: typeof role === "string" ? [role, ...stringList(roles)] : stringList(roles),
    permissions: stringList(permissions),
    metadata: rest,
  };
}

/**
 * Firebase Authentication (Identity Toolkit v1 REST) behind the user operations: a Google OAuth
 * token by the JWT bearer grant (RFC 7523, an assertion signed with the service account key
 * by jose; cached), `accounts:lookup` by `localId` or `email`, and `accounts:update` with
 * `customAttributes` for metadata, roles and permissions (the custom claims of the next ID token).
 *
 * @example
 * const operations = createFirebaseUserClient({ projectId: "my-project", serviceAccount, apiUrl: "https://identitytoolkit.googleapis.com", timeoutMs: 10_000 });
 */
export function createFirebaseUserClient(options: FirebaseAdminOptions): UserOperations {
  const account = options.serviceAccount;
  const tokenUri = account.token_uri ?? "https://oauth2.googleapis.com/token";
  let signingKey: ReturnType<typeof importPKCS8> | undefined;
  const token = cachedToken(async () => {
    signingKey ??= importPKCS8(account.private_key, "RS256");
    const key = await signingKey.catch((error: unknown) => {
      signingKey = undefined;
      throw new ProviderAPIError("firebase", "The service account's private_key cannot be read", { cause: error });
    });
    const assertion = await new SignJWT({ scope: SCOPES })
      .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(account.private_key_id ? { kid: account.private_key_id } : {}) })
      .setIssuer(account.client_email)
      .setAudience(tokenUri)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(key);
    const answer = recordOf(
      await adminJson("firebase", tokenUri, {
        method: "POST",
        form: { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion },
        timeoutMs: options.timeoutMs,
      }),
    );
    if (typeof answer.access_token !== "string")
      throw new ProviderAPIError("firebase", "Google token endpoint answered without access_token");
    return { accessToken: answer.access_token, ...(typeof answer.expires_in === "number" ? { expiresInSec: answer.expires_in } : {}) };
  });
  const base = `${options.apiUrl.replace(/\/+$/, "")}/v1/projects/${encodeURIComponent(options.projectId)}`;
  const call = async (operation: "accounts:lookup" | "accounts:update", json: unknown) =>
    adminJson("firebase", `${base}/${operation}`, {
      method: "POST",
      headers: { authorization: `Bearer ${await token()}` },
      json,
      timeoutMs: options.timeoutMs,
      // Identity Toolkit answers a missing user with 400 {error: {message: "USER_NOT_FOUND"}}.
      isNotFound: (status, body) => status === 400 && String(recordOf(recordOf(body).error).message).startsWith("USER_NOT_FOUND"),
    });
  const lookup = async (query: { localId: string[] } | { email: string[] }) => {
    const users = recordOf(await call("accounts:lookup", query)).users;
    return Array.isArray(users) ? users[0] : undefined;
  };
  const existing = async (id: string) => {
    const record = await lookup({ localId: [id] });
    if (!record) throw new UserNotFoundError("firebase");
    return recordOf(record);
  };
  const updateClaims = async (id: string, change: (claims: Record<string, unknown>) => Record<string, unknown>) => {
    const claims = change(customClaimsOf(await existing(id)));
    await call("accounts:update", { localId: id, customAttributes: JSON.stringify(claims) });
    return firebaseUserToConduit(await existing(id));
  };
  return {
    getUser: async (id) => firebaseUserToConduit(await existing(id)),
    async getUserByEmail(email) {
      const record = await lookup({ email: [email] });
      return record ? firebaseUserToConduit(record) : undefined;
    },
    updateUserMetadata: (id, metadata) =>
      updateClaims(id, (claims) => {
        const merged = { ...claims, ...metadata };
        for (const [key, value] of Object.entries(metadata)) if (value === null) delete merged[key];
        return merged;
      }),
    updateUserRoles: (id, roles) => updateClaims(id, ({ role: _single, ...claims }) => ({ ...claims, roles })),
    updateUserPermissions: (id, permissions) => updateClaims(id, (claims) => ({ ...claims, permissions })),
  };
}
