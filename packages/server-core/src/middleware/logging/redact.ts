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

/**
 * The path plus its query with credential values replaced, so a URL can be logged.
 *
 * @example
 * redactedUrl("/api/x", { api_key: "s3cret", page: "2" }); // "/api/x?api_key=[REDACTED]&page=2"
 */
export function redactedUrl(path: string, query: QueryValues): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      parts.push(`${encodeURIComponent(key)}=${SECRET_QUERY_KEY.test(key) ? REDACTED : encodeURIComponent(item)}`);
    }
  }
  return parts.length === 0 ? path : `${path}?${parts.join("&")}`;
}
