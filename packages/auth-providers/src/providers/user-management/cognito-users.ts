import { ProviderAPIError, UserNotFoundError } from "../../errors/auth-errors.js";
import type { AuthenticatedUser } from "../../types.js";
import { adminJson, optionalString, recordOf } from "./admin-http.js";
import { type AwsCredentials, signAwsRequest } from "./aws-sigv4.js";
import { type UserOperations, difference } from "./user-operations.js";

/** How Conduit reaches a Cognito user pool's admin actions. */
export interface CognitoAdminOptions extends AwsCredentials {
  region: string;
  userPoolId: string;
  /** Default `https://cognito-idp.<region>.amazonaws.com`. */
  endpoint: string;
  timeoutMs: number;
}

type Attribute = { Name?: unknown; Value?: unknown };

const CUSTOM = "custom:";

/**
 * A Cognito user (`AdminGetUser` or `ListUsers` shape) and its groups → Conduit's user. The id is
 * the `sub` attribute (what tokens carry); roles are the groups (`cognito:groups` in tokens);
 * `metadata` holds the custom attributes without their `custom:` prefix.
 */
export function cognitoUserToConduit(record: unknown, groups: string[]): AuthenticatedUser {
  const user = recordOf(record);
  const list = (
    Array.isArray(user.UserAttributes) ? user.UserAttributes : Array.isArray(user.Attributes) ? user.Attributes : []
  ) as Attribute[];
  const attributes = Object.fromEntries(list.map((attribute) => [String(attribute.Name), attribute.Value]));
  const metadata = Object.fromEntries(
    Object.entries(attributes)
      .filter(([name]) => name.startsWith(CUSTOM))
      .map(([name, value]) => [name.slice(CUSTOM.length), value]),
  );
  return {
    id: String(attributes.sub ?? user.Username),
    ...optionalString("email", attributes.email),
    ...optionalString("name", attributes.name ?? user.Username),
    roles: groups,
    // Cognito grants scopes per app client and resource server, not per user.
    permissions: [],
    metadata,
  };
}

/** A value inside a `ListUsers` filter string: quotes and backslashes escaped. */
const filterValue = (value: string): string => `"${value.replace(/["\\]/g, "\\$&")}"`;

/**
 * Cognito's admin actions behind the user operations, over the JSON 1.1 protocol (`POST /` with
 * `X-Amz-Target: AWSCognitoIdentityProviderService.<Action>`, SigV4-signed by hand with
 * node:crypto): `AdminGetUser` (or `ListUsers` by `sub`, so a token's user id works),
 * `ListUsers` with `email = "…"`, `AdminUpdateUserAttributes` / `AdminDeleteUserAttributes` on
 * `custom:` attributes, and groups as roles (`AdminAddUserToGroup`, `AdminRemoveUserFromGroup`).
 * Cognito has no per-user permissions, so `updateUserPermissions` is left out.
 *
 * @example
 * const operations = createCognitoUserClient({ region: "eu-west-1", userPoolId: "eu-west-1_AbC", endpoint: "https://cognito-idp.eu-west-1.amazonaws.com",
 *   accessKeyId, secretAccessKey, timeoutMs: 10_000 });
 */
export function createCognitoUserClient(options: CognitoAdminOptions): UserOperations {
  const url = `${options.endpoint.replace(/\/+$/, "")}/`;
  const call = async (action: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const body = JSON.stringify({ UserPoolId: options.userPoolId, ...payload });
    const headers = signAwsRequest(
      {
        method: "POST",
        url,
        headers: { "content-type": "application/x-amz-json-1.1", "x-amz-target": `AWSCognitoIdentityProviderService.${action}` },
        body,
        region: options.region,
        service: "cognito-idp",
      },
      options,
    );
    return recordOf(
      await adminJson("cognito", url, {
        method: "POST",
        headers,
        rawBody: body,
        timeoutMs: options.timeoutMs,
        // Cognito answers every client error with 400 and names it in `__type`.
        isNotFound: (status, answer) => status === 400 && String(recordOf(answer).__type).endsWith("UserNotFoundException"),
      }),
    );
  };
  const firstUser = async (filter: string) => {
    const users = (await call("ListUsers", { Filter: filter, Limit: 1 })).Users;
    return Array.isArray(users) && users.length > 0 ? recordOf(users[0]) : undefined;
  };
  /** The user by username, else by `sub` (the id tokens carry). */
  const find = async (id: string): Promise<Record<string, unknown>> => {
    try {
      return await call("AdminGetUser", { Username: id });
    } catch (error) {
      if (!(error instanceof UserNotFoundError)) throw error;
      const bySub = await firstUser(`sub = ${filterValue(id)}`);
      if (!bySub) throw error;
      return bySub;
    }
  };
  const groupsOf = async (username: string) => {
    const groups = (await call("AdminListGroupsForUser", { Username: username, Limit: 60 })).Groups;
    return (Array.isArray(groups) ? groups : []).map((group) => String(recordOf(group).GroupName));
  };
  const complete = async (user: Record<string, unknown>) => cognitoUserToConduit(user, await groupsOf(String(user.Username)));
  const getUser = async (id: string) => complete(await find(id));

  return {
    getUser,
    async getUserByEmail(email) {
      const user = await firstUser(`email = ${filterValue(email)}`);
      return user ? complete(user) : undefined;
    },
    async updateUserMetadata(id, metadata) {
      const Username = String((await find(id)).Username);
      const set = Object.entries(metadata).filter(([, value]) => value !== null);
      const removed = Object.entries(metadata).filter(([, value]) => value === null);
      // Custom attributes hold strings; anything else is stored as JSON.
      const UserAttributes = set.map(([key, value]) => ({
        Name: `${CUSTOM}${key}`,
        Value: typeof value === "string" ? value : JSON.stringify(value),
      }));
      if (UserAttributes.length > 0) await call("AdminUpdateUserAttributes", { Username, UserAttributes });
      if (removed.length > 0)
        await call("AdminDeleteUserAttributes", { Username, UserAttributeNames: removed.map(([key]) => `${CUSTOM}${key}`) });
      return getUser(Username);
    },
    async updateUserRoles(id, roles) {
      const Username = String((await find(id)).Username);
      const { add, remove } = difference(roles, await groupsOf(Username));
      const change = async (action: string, GroupName: string) => {
        try {
          await call(action, { Username, GroupName });
        } catch (error) {
          throw error instanceof ProviderAPIError && recordOf(error.details).status === 400
            ? new ProviderAPIError(
                "cognito",
                `Cognito could not ${action === "AdminAddUserToGroup" ? "add the user to" : "remove the user from"} group "${GroupName}"`,
                { details: { status: 400 } },
              )
            : error;
        }
      };
      for (const group of remove) await change("AdminRemoveUserFromGroup", group);
      for (const group of add) await change("AdminAddUserToGroup", group);
      return getUser(Username);
    },
  };
}
