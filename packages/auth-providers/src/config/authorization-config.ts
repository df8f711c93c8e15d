import type { RoleHierarchy, RolePermissions } from "@conduit-ai/auth";
import { InvalidConfigurationError } from "../errors/auth-errors.js";
import type { AuthorizationRule } from "../rbac/authorization-rules.js";
import type { SettingsIssue } from "./settings-reader.js";

/** The config file's top-level `authorization` key. */
export interface AuthorizationConfig {
  /** Default `["super_admin", "root"]`. */
  superAdminRoles?: string[];
  hierarchy?: RoleHierarchy;
  rolePermissions?: RolePermissions;
  rules?: AuthorizationRule[];
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string" && item !== "");

function checkMap(value: unknown, path: string, issues: SettingsIssue[]): void {
  if (!isRecord(value)) return void issues.push({ path, message: "expected an object of string arrays" });
  for (const [key, list] of Object.entries(value))
    if (!isStrings(list)) issues.push({ path: `${path}.${key}`, message: "expected an array of strings" });
}

function checkRule(rule: unknown, path: string, issues: SettingsIssue[]): void {
  if (!isRecord(rule)) return void issues.push({ path, message: "expected an object" });
  for (const key of Object.keys(rule)) {
    if (!["path", "methods", "roles", "permissions", "requireAllRoles"].includes(key))
      issues.push({ path: `${path}.${key}`, message: "unknown key" });
  }
  if (typeof rule.path !== "string" || !rule.path.startsWith("/"))
    issues.push({ path: `${path}.path`, message: "expected a path starting with /" });
  if (rule.methods !== undefined && (!isStrings(rule.methods) || rule.methods.some((method) => !METHODS.has(method.toUpperCase())))) {
    issues.push({ path: `${path}.methods`, message: `expected an array of HTTP methods (${[...METHODS].join(", ")})` });
  }
  for (const key of ["roles", "permissions"])
    if (rule[key] !== undefined && !isStrings(rule[key])) issues.push({ path: `${path}.${key}`, message: "expected an array of strings" });
  if (rule.requireAllRoles !== undefined && typeof rule.requireAllRoles !== "boolean")
    issues.push({ path: `${path}.requireAllRoles`, message: "expected a boolean" });
  if (rule.roles === undefined && rule.permissions === undefined) issues.push({ path, message: "a rule needs roles or permissions" });
}

/**
 * Checks the `authorization` key; every problem is named by path in one
 * `InvalidConfigurationError` (a role cycle is reported when the policy is built).
 *
 * @example
 * parseAuthorizationConfig({ rules: [{ path: "/api/tools/*", methods: ["POST"], roles: ["operator"] }] });
 */
export function parseAuthorizationConfig(input: unknown, path = "authorization"): AuthorizationConfig {
  const issues: SettingsIssue[] = [];
  if (!isRecord(input)) issues.push({ path, message: "expected an object" });
  else {
    for (const key of Object.keys(input)) {
      if (!["superAdminRoles", "hierarchy", "rolePermissions", "rules"].includes(key))
        issues.push({ path: `${path}.${key}`, message: "unknown key" });
    }
    if (
      input.superAdminRoles !== undefined &&
      !(Array.isArray(input.superAdminRoles) && input.superAdminRoles.every((role) => typeof role === "string"))
    ) {
      issues.push({ path: `${path}.superAdminRoles`, message: "expected an array of strings" });
    }
    if (input.hierarchy !== undefined) checkMap(input.hierarchy, `${path}.hierarchy`, issues);
    if (input.rolePermissions !== undefined) checkMap(input.rolePermissions, `${path}.rolePermissions`, issues);
    if (input.rules !== undefined) {
      if (!Array.isArray(input.rules)) issues.push({ path: `${path}.rules`, message: "expected an array" });
      else
        input.rules.forEach((rule, index) => {
          checkRule(rule, `${path}.rules[${index}]`, issues);
        });
    }
  }
  if (issues.length > 0) {
    throw new InvalidConfigurationError(
      "rbac",
      `Invalid authorization config: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`,
      { details: { issues } },
    );
  }
  return input as AuthorizationConfig;
}
