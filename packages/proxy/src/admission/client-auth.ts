import { AuthenticationError, type ServerContext } from "@conduit-ai/server-core";
import { digestsEqual, parseBearer, secretDigestBytes } from "@conduit-ai/server-core/internal";

/**
 * Whether a request may use the proxy: the server's own auth already admitted it (`ctx.user`),
 * or it carries one of `clientKeys` as `x-api-key` or `Authorization: Bearer` (the SDKs'
 * two ways). Keys are compared as SHA-256 digests with `digestsEqual`: constant time, and
 * no length leak. No keys and no user → refused (fail closed).
 */
export function createClientCheck(clientKeys: readonly string[]): (ctx: ServerContext) => boolean {
  const digests = clientKeys.map(digest);
  return (ctx) => {
    if (ctx.user) return true;
    const presented = presentedCredential(ctx);
    if (!presented) return false;
    const candidate = credentialDigest(ctx, presented);
    let matched = false;
    // Every key compared, whichever matches: time does not tell which.
    for (const key of digests) matched = digestsEqual(key, candidate) || matched;
    return matched;
  };
}

/**
 * Why a client was refused, the same words on every proxy surface: no key at all, or a key that
 * is not one of the proxy's (never echoing it).
 *
 * @example
 * throw new AuthenticationError(clientKeyRefusal(ctx));
 */
export function clientKeyRefusal(ctx: Pick<ServerContext, "header">): string {
  return presentedCredential(ctx) === undefined
    ? "A proxy client key is required (x-api-key or Authorization: Bearer)"
    : "The proxy client key is not valid (x-api-key or Authorization: Bearer)";
}

/** The credential a client presents the SDKs' two ways: `x-api-key`, or `Authorization: Bearer`. */
export function presentedCredential(ctx: Pick<ServerContext, "header">): string | undefined {
  return ctx.header("x-api-key") ?? parseBearer(ctx.header("authorization"));
}

const digest = secretDigestBytes;

/** Per request: the client check and the per-credential limiter key hash the same credential. */
const requestDigests = new WeakMap<object, { credential: string; digest: Buffer }>();

/**
 * SHA-256 of the credential `ctx` presents, hashed once per request.
 *
 * @example
 * const key = `key:${credentialDigest(ctx, presentedCredential(ctx)).toString("hex", 0, 16)}`;
 */
export function credentialDigest(ctx: object, credential: string): Buffer {
  const known = requestDigests.get(ctx);
  if (known?.credential === credential) return known.digest;
  const computed = digest(credential);
  requestDigests.set(ctx, { credential, digest: computed });
  return computed;
}

/**
 * A caller without a valid client key, thrown so the route group's one error step shapes it
 * (Anthropic's shape on `/v1/messages`, the envelope on `/accounts` and `/limits`).
 *
 * @example
 * if (!isClientAllowed(ctx)) throw clientKeyError(ctx);
 */
export function clientKeyError(ctx: Pick<ServerContext, "header">): AuthenticationError {
  return new AuthenticationError(clientKeyRefusal(ctx));
}
