import type { ValidationIssue } from "./validation-issue.js";

/** What the formatter reads of a zod issue (zod 4's `$ZodIssue`, or anything shaped like it). */
export interface ZodIssueLike {
  readonly code?: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  /** `unrecognized_keys` issues: the keys not allowed. */
  readonly keys?: readonly string[];
  /** `invalid_value` issues (an enum or a literal): the values allowed. */
  readonly values?: readonly unknown[];
  /** The rejected value, when parsed with `{ reportInput: true }`. */
  readonly input?: unknown;
}

export interface FormatZodIssuesOptions {
  /** First segment of every field: `body`, `query`, `auth`, `proxy` … Default none. */
  root?: string;
  /** The field of an issue about the whole input (empty path). Default `root`, else `(root)`. */
  rootField?: string;
  /** Array indices as `items.0` (default, the HTTP envelope's spelling) or `items[0]` (OpenAI's `param`). */
  indices?: "dots" | "brackets";
  /**
   * `unrecognized_keys` issues: `each` gives one `unknown key` issue at every key; `joined`
   * gives one issue whose field lists them (`a.x, a.y`); default keeps zod's issue as it is.
   */
  unknownKeys?: "each" | "joined";
  /** Message of an unknown key's issue. Default `unknown key`. */
  unknownKeyMessage?: string;
  /**
   * The validated input: each issue then carries the rejected value at its path (the envelope
   * echoes short primitives). Without it, an issue's own `input` (`reportInput: true`) is used.
   */
  input?: unknown;
  /** At most this many issues. Default all. */
  limit?: number;
  /**
   * A segment's own spelling, e.g. a secret map key named by position (`keys[#2]`); return
   * undefined for the default. `path` is the issue's whole path.
   */
  segment?: (segment: PropertyKey, index: number, path: readonly PropertyKey[]) => string | undefined;
  /** A surface's own wording of an issue (default zod's `message`). */
  message?: (issue: ZodIssueLike) => string;
}

/** The input's own value at `path` (never an inherited one such as `constructor`), or undefined. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * A zod issue path as a field: `body.messages.0.role` (or `messages[0].role` with
 * `indices: "brackets"`).
 *
 * @example
 * zodIssueField(["messages", 0, "role"], { root: "body" }); // "body.messages.0.role"
 */
export function zodIssueField(path: readonly PropertyKey[], options: FormatZodIssuesOptions = {}): string {
  if (path.length === 0) return options.rootField ?? options.root ?? "(root)";
  let field = options.root ?? "";
  path.forEach((segment, index) => {
    const own = options.segment?.(segment, index, path);
    if (own !== undefined) field += own;
    else if (typeof segment === "number" && options.indices === "brackets") field += `[${segment}]`;
    else field += `${field === "" ? "" : "."}${String(segment)}`;
  });
  return field;
}

/**
 * The one translation of zod issues into the error envelope's issue list
 * (`details.errors: [{field, message, value?}]`); every surface that reports zod issues goes
 * through it and wraps the list in its own shape (the envelope, a config error, a vendor's error).
 *
 * @example
 * const result = schema.safeParse(body);
 * if (!result.success) throw new ServerValidationError("Request validation failed", formatZodIssues(result.error, { root: "body", input: body }));
 */
export function formatZodIssues(
  issues: { readonly issues: readonly ZodIssueLike[] } | readonly ZodIssueLike[],
  options: FormatZodIssuesOptions = {},
): ValidationIssue[] {
  const list = "issues" in issues ? issues.issues : issues;
  const unknownKey = options.unknownKeyMessage ?? "unknown key";
  const formatted: ValidationIssue[] = [];
  const push = (field: string, message: string, value: unknown) =>
    formatted.push(value === undefined ? { field, message } : { field, message, value });
  for (const issue of list.slice(0, options.limit)) {
    const rejected = "input" in options ? valueAt(options.input, issue.path) : issue.input;
    if (issue.code === "unrecognized_keys" && issue.keys && options.unknownKeys === "each") {
      for (const key of issue.keys) push(zodIssueField([...issue.path, key], options), unknownKey, valueAt(rejected, [key]));
    } else if (issue.code === "unrecognized_keys" && issue.keys && options.unknownKeys === "joined") {
      push(issue.keys.map((key) => zodIssueField([...issue.path, key], options)).join(", "), unknownKey, undefined);
    } else push(zodIssueField(issue.path, options), options.message?.(issue) ?? issue.message, rejected);
  }
  return formatted;
}

/**
 * The issues as one line for an error message: `auth.issuer: expected a URL; auth.isuer: unknown key`.
 *
 * @example
 * throw new ConfigurationError(`Invalid proxy config: ${summarizeIssues(issues)}`, { details: { issues } });
 */
export function summarizeIssues(issues: readonly { field: string; message: string }[]): string {
  return issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
}
