import { ConfigurationError, formatZodIssues } from "@conduit-ai/server-core";
import { z } from "zod";
import type { AuthResult } from "./auth-types.js";

/** A user as written in a config file: the same record a validator returns. */
export type StaticUserConfig = AuthResult;

/** A Basic user: the map key is the username, `id` defaults to it. */
export interface StaticBasicUserConfig extends Omit<StaticUserConfig, "id"> {
  id?: string;
  password: string;
}

interface CommonAuthConfig {
  /** Default true; false turns auth off (the function returns no middleware). */
  enabled?: boolean;
  skipPaths?: string[];
  headerName?: string;
  /** Cookie read when the header carries nothing (HTTP and the `/ws` upgrade alike). */
  cookieName?: string;
  /** Query parameter read after header and cookie (HTTP and the `/ws` upgrade alike; URLs get logged). */
  queryParam?: string;
  errorMessage?: string;
  skipDevPlayground?: boolean;
  /** Enables the dev playground bypass without NODE_ENV=development (loopback only; never in production). */
  devPlayground?: boolean;
  realm?: string;
  /** Context helpers without `ctx` (AsyncLocalStorage); default false. */
  ambientContext?: boolean;
}

/** The demo config's `auth` key. Map keys of `keys`/`tokens` are secrets and never appear in errors. */
export type StaticAuthConfig =
  | (CommonAuthConfig & { type: "api-key"; keys: Record<string, StaticUserConfig> })
  | (CommonAuthConfig & { type: "bearer"; tokens: Record<string, StaticUserConfig> })
  | (CommonAuthConfig & { type: "basic"; users: Record<string, StaticBasicUserConfig> });

interface Issue {
  path: string;
  message: string;
}

const nonEmpty = z.string({ error: "expected a non-empty string" }).min(1, { error: "expected a non-empty string" });
const optionalString = z.string({ error: "expected a string" }).optional();
const stringList = z.array(z.string(), { error: "expected an array of strings" }).optional();

const userSchema = z.strictObject({
  id: nonEmpty,
  email: optionalString,
  name: optionalString,
  roles: stringList,
  permissions: stringList,
  metadata: z.record(z.string(), z.unknown(), { error: "expected an object" }).optional(),
});
const basicUserSchema = userSchema.extend({ id: nonEmpty.optional(), password: nonEmpty });

/** A map of at least one entry whose keys are non-empty (usernames also without ':'); bad keys do not stop the values' checks. */
function entriesOf<T extends z.ZodType>(user: T, username = false) {
  return z.record(z.string(), user, { error: "expected an object with at least one entry" }).superRefine(
    (entries, context) => {
      const names = Object.keys(entries);
      if (names.length === 0) context.addIssue({ code: "custom", message: "expected an object with at least one entry" });
      for (const name of names) {
        if (name.trim() === "") context.addIssue({ code: "custom", path: [name], message: "empty key" });
        else if (username && name.includes(":"))
          context.addIssue({ code: "custom", path: [name], message: "a username cannot contain ':'" });
      }
    },
    // Also when an entry's value failed: every problem is named in one pass.
    { when: (payload) => typeof payload.value === "object" && payload.value !== null },
  );
}

const common = {
  enabled: z.boolean({ error: "expected a boolean" }).optional(),
  skipPaths: stringList,
  headerName: nonEmpty.optional(),
  cookieName: nonEmpty.optional(),
  queryParam: nonEmpty.optional(),
  errorMessage: nonEmpty.optional(),
  skipDevPlayground: z.boolean({ error: "expected a boolean" }).optional(),
  devPlayground: z.boolean({ error: "expected a boolean" }).optional(),
  realm: nonEmpty.optional(),
  ambientContext: z.boolean({ error: "expected a boolean" }).optional(),
};

const staticAuthSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("api-key"), keys: entriesOf(userSchema), ...common }),
    z.strictObject({ type: z.literal("bearer"), tokens: entriesOf(userSchema), ...common }),
    z.strictObject({ type: z.literal("basic"), users: entriesOf(basicUserSchema, true), ...common }),
  ],
  { error: 'expected "api-key", "bearer" or "basic"' },
);

const SECRET_MAPS = new Set(["keys", "tokens"]);

function toIssues(error: z.ZodError, input: Record<string, unknown>, base: string): Issue[] {
  // Several failures of one array (e.g. `roles: [1, 2]`) are one problem with the array.
  const issues = error.issues.map((issue) => {
    const arrayIndex = issue.path.findIndex((segment) => typeof segment === "number");
    return arrayIndex === -1 ? issue : { ...issue, path: issue.path.slice(0, arrayIndex), message: "expected an array of strings" };
  });
  return formatZodIssues(issues, {
    root: base,
    // One issue per unknown key, at the key itself.
    unknownKeys: "each",
    // API keys and tokens (map keys) are named by position (`auth.keys[#2].roles`), never by value; usernames are not secrets.
    segment: (segment, index, path) => {
      const map = path[0];
      if (index !== 1 || typeof map !== "string" || !SECRET_MAPS.has(map)) return undefined;
      return `[#${Object.keys((input[map] ?? {}) as object).indexOf(String(segment)) + 1}]`;
    },
  }).map(({ field, message }) => ({ path: field, message }));
}

/**
 * Checks the demo config's `auth` key with zod and returns it typed, or throws a
 * `ConfigurationError` naming every bad key (`details.issues`). Secret map keys are
 * named by position (`auth.keys[#2]`), never by value.
 *
 * @example
 * parseStaticAuthConfig({ type: "api-key", keys: { "k-123": { id: "ci", roles: ["ci"] } } });
 */
export function parseStaticAuthConfig(input: unknown, path = "auth"): StaticAuthConfig {
  const isRecord = typeof input === "object" && input !== null && !Array.isArray(input);
  if (!isRecord)
    throw new ConfigurationError(`Invalid auth config: ${path} must be an object`, {
      details: { issues: [{ path, message: "expected an object" }] },
    });
  const parsed = staticAuthSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const seen = new Set<string>();
  const issues = toIssues(parsed.error, input as Record<string, unknown>, path).filter((issue) => {
    const key = `${issue.path} ${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  throw new ConfigurationError(`Invalid auth config: ${summary}`, { details: { issues } });
}
