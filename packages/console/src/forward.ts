import { type RequestHandler, type ServerContext, rawResponse } from "@conduit-ai/server-core";

/** Headers of the target's answer the console passes on; everything else (cookies included) stays behind. */
const PASSED_HEADERS = ["content-type", "content-disposition", "retry-after", "x-should-retry", "x-request-id"];

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
 * whole pipeline (so the target's own checks run), presenting `credential` as the caller: the
 * browser never holds it, only its session cookie. The answer comes back as the target gave it.
 *
 * @example
 * return forwardInProcess(server.handler, ctx, { path: "/admin/keys", credential });
 */
export async function forwardInProcess(
  handler: RequestHandler,
  ctx: ServerContext,
  target: { path: string; credential: string | undefined; accept?: string },
) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(ctx.query)) for (const item of [value].flat()) search.append(name, String(item));
  const query = search.toString();
  const headers: Record<string, string> = { accept: target.accept ?? ctx.header("accept") ?? "application/json" };
  for (const name of ["host", "content-type", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-request-id"]) {
    const value = ctx.header(name);
    if (value !== undefined) headers[name] = value;
  }
  if (target.credential !== undefined) {
    headers.authorization = `Bearer ${target.credential}`;
  }
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
