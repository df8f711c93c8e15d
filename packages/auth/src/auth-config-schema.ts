import { ConfigurationError } from "@conduit-ai/server-core";
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
  errorMessage?: string;
  skipDevPlayground?: boolean;
  realm?: string;
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

const COMMON_KEYS = ["type", "enabled", "skipPaths", "headerName", "errorMessage", "skipDevPlayground", "realm"];
const USER_KEYS = ["id", "email", "name", "roles", "permissions", "metadata"];
const MAP_KEY = { "api-key": "keys", bearer: "tokens", basic: "users" } as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isStringArray = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === "string");

function checkUser(value: unknown, path: string, basic: boolean, issues: Issue[]): void {
  if (!isRecord(value)) {
    issues.push({ path, message: "expected an object" });
    return;
  }
  for (const key of Object.keys(value)) {
    if (!USER_KEYS.includes(key) && !(basic && key === "password")) issues.push({ path: `${path}.${key}`, message: "unknown key" });
  }
  if (basic ? value.id !== undefined && (typeof value.id !== "string" || value.id === "") : typeof value.id !== "string" || value.id === "") {
    issues.push({ path: `${path}.id`, message: "expected a non-empty string" });
  }
  if (basic && (typeof value.password !== "string" || value.password === "")) {
    issues.push({ path: `${path}.password`, message: "expected a non-empty string" });
  }
  for (const key of ["email", "name"]) {
    if (value[key] !== undefined && typeof value[key] !== "string") issues.push({ path: `${path}.${key}`, message: "expected a string" });
  }
  for (const key of ["roles", "permissions"]) {
    if (value[key] !== undefined && !isStringArray(value[key])) issues.push({ path: `${path}.${key}`, message: "expected an array of strings" });
  }
  if (value.metadata !== undefined && !isRecord(value.metadata)) issues.push({ path: `${path}.metadata`, message: "expected an object" });
}

/**
 * Checks the demo config's `auth` key and returns it typed, or throws a
 * `ConfigurationError` naming every bad key (`details.issues`). Secret map keys are
 * named by position (`auth.keys[#2]`), never by value.
 *
 * @example
 * parseStaticAuthConfig({ type: "api-key", keys: { "k-123": { id: "ci", roles: ["ci"] } } });
 */
export function parseStaticAuthConfig(input: unknown, path = "auth"): StaticAuthConfig {
  const issues: Issue[] = [];
  if (!isRecord(input)) throw new ConfigurationError(`Invalid auth config: ${path} must be an object`, { details: { issues: [{ path, message: "expected an object" }] } });
  const type = input.type;
  if (type !== "api-key" && type !== "bearer" && type !== "basic") {
    issues.push({ path: `${path}.type`, message: 'expected "api-key", "bearer" or "basic"' });
  } else {
    const mapKey = MAP_KEY[type];
    for (const key of Object.keys(input)) {
      if (!COMMON_KEYS.includes(key) && key !== mapKey) issues.push({ path: `${path}.${key}`, message: "unknown key" });
    }
    const entries = input[mapKey];
    if (!isRecord(entries) || Object.keys(entries).length === 0) {
      issues.push({ path: `${path}.${mapKey}`, message: "expected an object with at least one entry" });
    } else {
      Object.entries(entries).forEach(([name, user], index) => {
        // Usernames are not secrets; API keys and tokens are.
        const label = type === "basic" ? `${path}.${mapKey}.${name}` : `${path}.${mapKey}[#${index + 1}]`;
        if (name.trim() === "") issues.push({ path: label, message: "empty key" });
        if (type === "basic" && name.includes(":")) issues.push({ path: label, message: "a username cannot contain ':'" });
        checkUser(user, label, type === "basic", issues);
      });
    }
  }
  if (input.skipPaths !== undefined && !isStringArray(input.skipPaths)) issues.push({ path: `${path}.skipPaths`, message: "expected an array of strings" });
  for (const key of ["headerName", "errorMessage", "realm"]) {
    if (input[key] !== undefined && (typeof input[key] !== "string" || input[key] === "")) issues.push({ path: `${path}.${key}`, message: "expected a non-empty string" });
  }
  for (const key of ["enabled", "skipDevPlayground"]) {
    if (input[key] !== undefined && typeof input[key] !== "boolean") issues.push({ path: `${path}.${key}`, message: "expected a boolean" });
  }
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
    throw new ConfigurationError(`Invalid auth config: ${summary}`, { details: { issues } });
  }
  return input as unknown as StaticAuthConfig;
}
