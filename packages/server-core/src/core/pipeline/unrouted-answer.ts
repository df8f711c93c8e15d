import { HTTP_METHODS, type HttpMethod } from "../../contracts/http.js";
import { RouteNotFoundError } from "../../errors/server-errors.js";
import type { RequestContext } from "./request-context.js";

/** What `OPTIONS *` answers: the methods this server understands at all. */
const SERVER_METHODS = ["HEAD", ...HTTP_METHODS].join(", ");

/**
 * The answer for a request no route takes: `OPTIONS *` and `OPTIONS` on a known path are 204
 * with `Allow`; a known path with another method is 405-style `ROUTE_NOT_FOUND` naming the
 * allowed methods; anything else 404.
 */
export function answerUnrouted(context: RequestContext, allowed: HttpMethod[]): void {
  if (context.path === "*") {
    context.setHeader("allow", SERVER_METHODS);
    context.response.status = 204;
    context.response.body = null;
    return;
  }
  if (allowed.length > 0) context.setHeader("allow", [...new Set([...allowed, "OPTIONS"])].join(", "));
  if (context.method === "OPTIONS" && allowed.length > 0) {
    context.response.status = 204;
    context.response.body = null;
    return;
  }
  throw new RouteNotFoundError(context.method, context.path, allowed.length > 0 ? { details: { allowed } } : {});
}
