import { formatZodIssues, summarizeIssues } from "@conduit-ai/server-core";
import { z } from "zod";
import { InvalidConfigurationError } from "../errors/auth-errors.js";

export interface SettingsIssue {
  path: string;
  message: string;
}

/**
 * The zod schemas of a provider's settings, one per key of its settings type `S`: a key
 * missing here, or a schema whose value does not fit the type, fails type-checking.
 */
export type SettingsShape<S> = { [K in Exclude<keyof S, "type">]-?: z.ZodType<Exclude<S[K], undefined>> };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const protocol = new URL(value).protocol;
  return protocol === "http:" || protocol === "https:";
}

/** A list with a bad item is one problem with the list, named at the key (not one per item). */
const isStrings = (value: unknown): boolean =>
  (typeof value === "string" && value !== "") || (Array.isArray(value) && value.every((item) => typeof item === "string" && item !== ""));

/** An absent key says "required"; any other value gets the setting's own message. */
const said = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? "required" : message);

const STRING = "expected a non-empty string";
const URL_MESSAGE = "expected an absolute http(s) URL";

const nonEmptyString = z.string({ error: said(STRING) }).min(1, { error: STRING });

/**
 * The kinds of value a setting takes, as zod schemas with the messages a config file's
 * author reads (`auth.issuer: expected an absolute http(s) URL`).
 *
 * @example
 * const shape = { issuer: setting.url(), audience: setting.strings(), timeoutMs: setting.number(1) };
 */
export const setting = {
  string: () => nonEmptyString,
  url: () => z.string({ error: said(URL_MESSAGE) }).refine(isHttpUrl, { error: URL_MESSAGE }),
  number: (min?: number) => {
    const number = z.number({ error: said("expected a number") });
    return min === undefined ? number : number.min(min, { error: `expected a number ≥ ${min}` });
  },
  boolean: () => z.boolean({ error: said("expected a boolean") }),
  /** One of a few words: `expected "access", "id" or "any"`. */
  oneOf: <const T extends readonly [string, ...string[]]>(values: T) => {
    const quoted = values.map((value) => `"${value}"`);
    const message = `expected ${quoted.length > 1 ? `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}` : quoted[0]}`;
    return z.enum(values, { error: said(message) });
  },
  /** One string or a list of them (`issuer: "a"` or `issuer: ["a", "b"]`). */
  strings: () => z.custom<string | string[]>(isStrings, { error: said("expected a string or an array of strings") }),
  object: <T extends object = Record<string, unknown>>() => z.custom<T>(isRecord, { error: said("expected an object") }),
  // biome-ignore lint/suspicious/noExplicitAny: a callback setting's own signature is the settings type's business
  function: <T extends (...args: any[]) => unknown>() =>
    z.custom<T>((value) => typeof value === "function", { error: said("expected a function") }),
  stringOrObject: <T extends object = Record<string, unknown>>() =>
    z.custom<string | T>((value) => (typeof value === "string" && value !== "") || isRecord(value), {
      error: said("expected a string or an object"),
    }),
} as const;

/**
 * Checks a provider's settings with the zod schemas of `shape` (every key optional, no other
 * key allowed, `type` ignored): every unknown key and every bad value is named by path in one
 * `InvalidConfigurationError` (`details.issues`); values are never echoed, so a misplaced
 * secret does not end up in a log.
 *
 * @example
 * const settings = readSettings<JwtProviderSettings>("jwt", input, { secret: setting.string(), issuer: setting.strings() });
 */
export function readSettings<S>(provider: string, input: unknown, shape: Record<string, z.ZodType>, path = "auth"): S {
  if (!isRecord(input)) {
    throw new InvalidConfigurationError(provider, `Invalid ${provider} auth settings: ${path} must be an object`, {
      details: { issues: [{ path, message: "expected an object" }] },
    });
  }
  const { type: _type, ...settings } = input;
  const result = z.strictObject(shape).partial().safeParse(settings);
  if (result.success) return result.data as S;
  const issues: SettingsIssue[] = formatZodIssues(result.error, { root: path, unknownKeys: "each" }).map(({ field, message }) => ({
    path: field,
    message,
  }));
  throw new InvalidConfigurationError(provider, `Invalid ${provider} auth settings: ${summarizeIssues(issues.map(toField))}`, {
    details: { issues },
  });
}

const toField = (issue: SettingsIssue) => ({ field: issue.path, message: issue.message });

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
