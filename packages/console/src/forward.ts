import { type RequestHandler, type ServerContext, rawResponse } from "@conduit-ai/server-core";
import { type CredentialRule, defaultCredentialHeader } from "@conduit-ai/server-core/internal";
import { type AdminRequestCheck, isAdminKey } from "./admin-check.js";

/** The request headers that present a credential to the server (`Authorization: Bearer …`, `x-api-key: …`). */
export type CredentialPresenter = (credential: string) => Record<string, string>;

/** An admin key, as the admin API reads it. */
export const presentAsBearer: CredentialPresenter = (credential) => ({ authorization: `Bearer ${credential}` });

/**
 * The inverse of server-core's `readCredential` for one rule: the header that carries
 * `credential` the way the server's own auth reads it — the rule's header (or the scheme's
 * default), `Basic <base64>` for a `username:password`, `Bearer` on `Authorization`, the bare
 * value on a dedicated header.
 *
 * @example
 * presentByRule({ scheme: "api-key" })("k-1"); // { "x-api-key": "k-1" }
 */
export function presentByRule(rule: CredentialRule): CredentialPresenter {
  const header = (rule.headerName ?? defaultCredentialHeader(rule.scheme)).toLowerCase();
  return (credential) => {
    if (rule.scheme === "basic") return { [header]: `Basic ${Buffer.from(credential, "utf8").toString("base64")}` };
    if (rule.scheme === "api-key" || header !== "authorization") return { [header]: credential };
    return { [header]: `Bearer ${credential}` };
  };
}

/** Headers of the target's answer the console passes on; everything else (cookies included) stays behind. */
const PASSED_HEADERS = ["content-type", "content-disposition", "retry-after", "x-should-retry", "x-request-id"];

/**
 * How the console presents a session's credential when it forwards: an admin key as `Bearer`
 * (the admin API's own header, let past the server's auth on `/admin/*`), any other credential —
 * a user of the server's auth — by that auth's rule, so the server's auth admits it first.
 *
 * @example
 * const present = consolePresenter(governance.checkAdmin, { scheme: "api-key" });
 */
export function consolePresenter(check: AdminRequestCheck, serverRule: CredentialRule | undefined): CredentialPresenter {
  const asServerUser = serverRule ? presentByRule(serverRule) : presentAsBearer;
  return (credential) => (isAdminKey(check, credential) ? presentAsBearer(credential) : asServerUser(credential));
}

/** Yields the body and releases the inner request once it is read or abandoned. */
async function* releasing(body: AsyncIterable<Uint8Array | string>, done: () => void): AsyncGenerator<Uint8Array | string> {
  try {
    yield* body;
  } finally {
    done();
  }
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/**
 * Sends the console's request to another route of the same server, in process, through the
 * whole pipeline (so the server's auth and the target's own checks run), presenting `credential`
 * as the caller — by `present` (default `Authorization: Bearer`): the browser never holds it,
 * only its session cookie. The answer comes back as the target gave it.
 *
 * @example
 * return forwardInProcess(server.handler, ctx, { path: "/admin/keys", credential });
 */
export async function forwardInProcess(
  handler: RequestHandler,
  ctx: ServerContext,
  target: { path: string; credential: string | undefined; present?: CredentialPresenter; accept?: string },
) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(ctx.query)) for (const item of [value].flat()) search.append(name, String(item));
  const query = search.toString();
  const headers: Record<string, string> = { accept: target.accept ?? ctx.header("accept") ?? "application/json" };
  // The user agent too: the admin API's audit log names the operator's browser, not the console.
  for (const name of ["host", "content-type", "user-agent", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-request-id"]) {
    const value = ctx.header(name);
    if (value !== undefined) headers[name] = value;
  }
  if (target.credential !== undefined) Object.assign(headers, (target.present ?? presentAsBearer)(target.credential));
  const bytes = ctx.method === "GET" || ctx.method === "HEAD" ? undefined : await ctx.readRawBody();
  const outgoing = await handler.dispatch({
    method: ctx.method,
    url: query === "" ? target.path : `${target.path}?${query}`,
    headers,
    clientAddress: ctx.peerAddress,
    body: bytes && bytes.byteLength > 0 ? { kind: "stream", stream: once(bytes) } : { kind: "none" },
    signal: ctx.abortSignal,
    // Counted once, as the console request it is part of: per-address limiters skip it.
    inProcess: true,
  });
  const passed: Record<string, string> = { "cache-control": "no-store" };
  for (const name of PASSED_HEADERS) {
    const value = outgoing.headers[name];
    if (typeof value === "string") passed[name] = value;
  }
  const body = outgoing.body;
  if (body === null || typeof body === "string" || body instanceof Uint8Array) {
    outgoing.done();
    return rawResponse(body, { status: outgoing.status, headers: passed });
  }
  return rawResponse(releasing(body, outgoing.done), { status: outgoing.status, headers: passed });
}
