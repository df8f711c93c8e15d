import { InvalidConfigurationError } from "../errors/auth-errors.js";

export interface SettingsIssue {
  path: string;
  message: string;
}

type Kind = "string" | "url" | "number" | "boolean" | "strings" | "object" | "function" | "string-or-object";

/** One key of a provider's settings: its kind and whether it must be there. */
export interface SettingSpec {
  kind: Kind;
  required?: boolean;
  /** Numbers: smallest allowed value. */
  min?: number;
}

export type SettingsSpec = Record<string, SettingSpec>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function check(value: unknown, spec: SettingSpec): string | undefined {
  switch (spec.kind) {
    case "string":
      return typeof value === "string" && value !== "" ? undefined : "expected a non-empty string";
    case "url": {
      if (typeof value !== "string" || !URL.canParse(value)) return "expected an absolute http(s) URL";
      const protocol = new URL(value).protocol;
      return protocol === "http:" || protocol === "https:" ? undefined : "expected an absolute http(s) URL";
    }
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return "expected a number";
      return spec.min !== undefined && value < spec.min ? `expected a number ≥ ${spec.min}` : undefined;
    case "boolean":
      return typeof value === "boolean" ? undefined : "expected a boolean";
    case "strings":
      if (typeof value === "string" && value !== "") return undefined;
      return Array.isArray(value) && value.every((item) => typeof item === "string" && item !== "")
        ? undefined
        : "expected a string or an array of strings";
    case "object":
      return isRecord(value) ? undefined : "expected an object";
    case "function":
      return typeof value === "function" ? undefined : "expected a function";
    case "string-or-object":
      return (typeof value === "string" && value !== "") || isRecord(value) ? undefined : "expected a string or an object";
  }
}

/**
 * Checks a provider's settings against `spec`: every unknown key and every bad value is
 * named by path in one `InvalidConfigurationError` (`details.issues`); values are never
 * echoed, so a misplaced secret does not end up in a log.
 *
 * @example
 * const settings = readSettings("jwt", input, { secret: { kind: "string" }, issuer: { kind: "strings" } });
 */
export function readSettings<T>(provider: string, input: unknown, spec: SettingsSpec, path = "auth"): T {
  if (!isRecord(input)) {
    throw new InvalidConfigurationError(provider, `Invalid ${provider} auth settings: ${path} must be an object`, {
      details: { issues: [{ path, message: "expected an object" }] },
    });
  }
  const issues: SettingsIssue[] = [];
  for (const key of Object.keys(input)) {
    if (key === "type") continue;
    const entry = Object.hasOwn(spec, key) ? spec[key] : undefined;
    if (!entry) {
      issues.push({ path: `${path}.${key}`, message: "unknown key" });
      continue;
    }
    if (input[key] === undefined) continue;
    const problem = check(input[key], entry);
    if (problem) issues.push({ path: `${path}.${key}`, message: problem });
  }
  for (const [key, entry] of Object.entries(spec)) {
    if (entry.required && input[key] === undefined) issues.push({ path: `${path}.${key}`, message: "required" });
  }
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
    throw new InvalidConfigurationError(provider, `Invalid ${provider} auth settings: ${summary}`, { details: { issues } });
  }
  return input as T;
}

/** Raises the one-issue form of `readSettings`' error, for rules across keys ("one of secret, publicKey, jwksUrl"). */
export function settingsProblem(provider: string, path: string, message: string): InvalidConfigurationError {
  return new InvalidConfigurationError(provider, `Invalid ${provider} auth settings: ${path}: ${message}`, {
    details: { issues: [{ path, message }] },
  });
}

/** A string or list of strings as a list. */
export const listOf = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** `https://host/` and `https://host` are the same base: joins without doubling the slash. */
export const joinUrl = (base: string, path: string): string => `${base.replace(/\/+$/, "")}${path.startsWith("/") ? path : `/${path}`}`;
