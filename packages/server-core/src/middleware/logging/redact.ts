import type { QueryValues } from "../../contracts/context.js";

export const REDACTED = "[REDACTED]";

/** Query parameters whose values are credentials (`?api_key=`, `?token=`, `?access_token=`, `?password=`…). */
const SECRET_QUERY_KEY = /token|key|secret|password|passwd|auth|signature|session|credential|code/i;

/** Header names pino must censor wherever a caller logs them. */
const SECRET_HEADERS = ["authorization", "cookie", "set-cookie", "x-api-key", "proxy-authorization"];

/** pino `redact.paths`: secrets one or two levels deep (`headers.authorization`, `req.headers.cookie`…). */
export const REDACT_PATHS: string[] = SECRET_HEADERS.flatMap((name) => {
  const key = `["${name}"]`;
  return [key, `*${key}`, `*.*${key}`];
}).concat(["password", "*.password", "token", "*.token", "apiKey", "*.apiKey"]);

/** A parameter name logged as itself: short and plain (anything else may be a pasted secret). */
const PLAIN_NAME = /^[A-Za-z0-9_.[\]-]{1,32}$/;

/** How query values appear in request logs: `redact` (default) replaces every value; `log` keeps those whose name is not a credential's. */
export type QueryValueLogging = "redact" | "log";

/**
 * The path plus its query, safe to log. By default (`redact`) every value is replaced, and a
 * name is kept only when it is short and plain and carries a value: a key pasted as a bare
 * parameter (`?sk-conduit-…`) is a name without a value, and is replaced too. With `log`, values
 * are kept except under credential names (`api_key`, `token`, `password`…); bare names are still replaced.
 *
 * @example
 * redactedUrl("/api/x", { api_key: "s3cret", page: "2" }); // "/api/x?api_key=[REDACTED]&page=[REDACTED]"
 * redactedUrl("/api/x", { api_key: "s3cret", page: "2" }, "log"); // "/api/x?api_key=[REDACTED]&page=2"
 */
export function redactedUrl(path: string, query: QueryValues, values: QueryValueLogging = "redact"): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      const plainName = item !== "" && PLAIN_NAME.test(key);
      if (!plainName) parts.push(REDACTED);
      else if (values === "redact") parts.push(`${key}=${REDACTED}`);
      else parts.push(`${encodeURIComponent(key)}=${SECRET_QUERY_KEY.test(key) ? REDACTED : encodeURIComponent(item)}`);
    }
  }
  return parts.length === 0 ? path : `${path}?${parts.join("&")}`;
}
