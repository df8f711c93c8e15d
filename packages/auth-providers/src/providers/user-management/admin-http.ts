import { AuthProviderUnavailableError, AuthRateLimitError, ProviderAPIError, UserNotFoundError } from "../../errors/auth-errors.js";

/** One request to a vendor's admin API. */
export interface AdminRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  headers?: Record<string, string>;
  /** Sent as JSON (`content-type: application/json`) unless `form` or `rawBody` is given. */
  json?: unknown;
  /** Sent as `application/x-www-form-urlencoded` (OAuth token endpoints). */
  form?: Record<string, string>;
  /** Sent as is, with the caller's content type (Cognito's `application/x-amz-json-1.1`). */
  rawBody?: string;
  timeoutMs: number;
  /**
   * How the vendor says "no such user" when it is not a plain 404 (Cognito answers 400
   * `UserNotFoundException`, Firebase 400 `USER_NOT_FOUND`): true turns the answer into `UserNotFoundError`.
   */
  isNotFound?: (status: number, body: unknown) => boolean;
  /** The error for a not-found answer when the missing thing is not the user (a role looked up by name). */
  notFoundError?: () => Error;
}

/** Default timeout of an admin API request. */
export const ADMIN_TIMEOUT_MS = 10_000;

const parse = (text: string): unknown => {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * One JSON request to a vendor's admin API, bounded by `timeoutMs`. No answer (refused, DNS,
 * timeout) or a gateway failure (502/503/504) → `AuthProviderUnavailableError` (503, retryable);
 * 404 (or the vendor's own not-found answer) → `UserNotFoundError`; 429 → `AuthRateLimitError`;
 * any other failure → `ProviderAPIError` with `details.status`. Messages name the method and path
 * only: never the query (it may hold an email), a header or a credential.
 *
 * @example
 * const user = await adminJson("auth0", "https://tenant.auth0.com/api/v2/users/auth0%7C1", {
 *   headers: { authorization: `Bearer ${token}` }, timeoutMs: 10_000,
 * });
 */
export async function adminJson(provider: string, url: string, request: AdminRequest): Promise<unknown> {
  const { method = "GET", headers = {}, json, form, rawBody, timeoutMs, isNotFound, notFoundError } = request;
  const target = new URL(url);
  const body = rawBody ?? (form ? new URLSearchParams(form).toString() : json === undefined ? undefined : JSON.stringify(json));
  const contentType: Record<string, string> =
    rawBody !== undefined
      ? {}
      : form
        ? { "content-type": "application/x-www-form-urlencoded" }
        : json === undefined
          ? {}
          : { "content-type": "application/json" };
  let response: Response;
  try {
    response = await fetch(target, {
      method,
      headers: { accept: "application/json", ...contentType, ...headers },
      ...(body === undefined ? {} : { body }),
      redirect: "error",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new AuthProviderUnavailableError(provider, { host: target.host, cause: error });
  }
  const answer = parse(await response.text().catch(() => ""));
  if (response.ok) return answer;
  const where = `${method} ${target.pathname}`;
  if (response.status === 404 || isNotFound?.(response.status, answer)) throw notFoundError?.() ?? new UserNotFoundError(provider);
  if (response.status === 429) {
    const retryAfter = Number(response.headers.get("retry-after"));
    throw new AuthRateLimitError(
      provider,
      undefined,
      Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {},
    );
  }
  if (response.status === 502 || response.status === 503 || response.status === 504) {
    throw new AuthProviderUnavailableError(provider, { host: target.host, details: { status: response.status } });
  }
  throw new ProviderAPIError(provider, `Identity provider admin API answered ${response.status} (${where})`, {
    details: { status: response.status },
  });
}

/** A JSON object, or an empty one: vendor answers are read defensively. */
export const recordOf = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The strings of a JSON value that should be a list of strings. */
export const stringList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];

/** A string field, or nothing (so optional user fields stay absent instead of `undefined`). */
export const optionalString = <K extends string>(key: K, value: unknown): { [P in K]?: string } =>
  (typeof value === "string" && value !== "" ? { [key]: value } : {}) as { [P in K]?: string };
