import { randomUUID } from "node:crypto";
import type { RequiredServerAdapterConfig } from "../../contracts/config.js";
import type { HttpMethod } from "../../contracts/http.js";
import type { RegisteredRoute } from "../../contracts/route.js";
import { parseRawBody, readRawRequestBody, readRequestBody } from "../body/body-parser.js";
import type { TrustFunction } from "../credentials/client-address.js";
import { RequestContext, firstHeader, watchSignal } from "./request-context.js";
import type { IncomingRequest } from "./request-io.js";
import { type RequestTarget, parseRequestTarget } from "./request-target.js";
import type { RouteTable, TableEntry } from "./route-table.js";

/** An incoming `x-request-id` is honored only when it cannot smuggle anything into logs or headers. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A request before the pipeline runs: its context, target, route and what went wrong finding it. */
export interface PreparedRequest {
  context: RequestContext;
  target: RequestTarget | undefined;
  entry: TableEntry | undefined;
  allowed: HttpMethod[];
  /** A route lookup failure (a malformed `%` escape), answered as 400 once the pipeline runs. */
  lookupError: unknown;
  httpVersion: string | undefined;
}

/**
 * The first step of every request: parse the target, find the route (the framework's match, or
 * the core's own lookup), pick the request id and build the context with lazy body readers. It
 * never throws: what is wrong with the request is kept for the pipeline to answer.
 */
export function prepareRequest(
  input: IncomingRequest,
  route: RegisteredRoute | undefined,
  routes: RouteTable,
  config: RequiredServerAdapterConfig,
  trustProxy: TrustFunction,
): PreparedRequest {
  const target = parseRequestTarget(input.url);
  const path = target?.path ?? "/";
  const method = input.method.toUpperCase() as HttpMethod | "HEAD";
  let lookup: { entry?: TableEntry; allowed: HttpMethod[] } = { allowed: [] };
  // Matching decodes params: a malformed `%` escape must become the 400 envelope, not a rejection.
  let lookupError: unknown;
  try {
    if (target) lookup = route ? { entry: routes.entryFor(route), allowed: [route.method] } : routes.find(method, path);
  } catch (error) {
    lookupError = error;
  }
  const incomingId = input.headers["x-request-id"];
  const hasBody = BODY_METHODS.has(method);
  const rawBodyOptions = () => ({ limit: config.bodyParser.limit, contentLength: firstHeader(input.headers["content-length"]) });
  const context: RequestContext = new RequestContext({
    requestId: typeof incomingId === "string" && SAFE_REQUEST_ID.test(incomingId) ? incomingId : `req-${randomUUID()}`,
    method,
    path,
    query: {},
    headers: input.headers,
    peerAddress: input.clientAddress,
    trustProxy,
    route: lookup.entry?.route,
    params: {},
    watchDisconnect: input.watchDisconnect ?? (input.signal ? watchSignal(input.signal) : undefined),
    readBody: (): Promise<unknown> => (hasBody ? readBodyOf(input, context, config) : Promise.resolve(undefined)),
    readRawBody: () => (hasBody ? readRawRequestBody(input.body, rawBodyOptions()) : Promise.resolve(undefined)),
    ...(input.inProcess === true ? { inProcess: true } : {}),
  });
  context.response.headers["x-request-id"] = context.requestId;
  return { context, target, entry: lookup.entry, allowed: lookup.allowed, lookupError, httpVersion: input.httpVersion };
}

/** The parsed body; from the raw bytes when something (a proxy route) already read them. */
function readBodyOf(input: IncomingRequest, context: RequestContext, config: RequiredServerAdapterConfig): Promise<unknown> {
  const options = {
    limit: config.bodyParser.limit,
    maxDepth: config.bodyParser.maxDepth,
    contentType: firstHeader(input.headers["content-type"]),
    contentLength: firstHeader(input.headers["content-length"]),
  };
  if (input.body.kind !== "stream") return readRequestBody(input.body, options);
  return context.readRawBody().then((bytes) => parseRawBody(bytes, options));
}
