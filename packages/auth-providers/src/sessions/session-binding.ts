import { secretDigest } from "@conduit-ai/server-core/internal";

// Per verified claim set (the same object for a cached token): one digest per token, not per request.
const bindings = new WeakMap<object, string>();

/** The credential's session binding: the identity provider's own session id when the token names one (`sid`), else the token's digest. */
export function sessionBinding(token: string, claims: Record<string, unknown>): string {
  const sid = claims.sid;
  if (typeof sid === "string" && sid !== "") return `sid:${sid}`;
  let binding = bindings.get(claims);
  if (binding === undefined) {
    binding = `token:${secretDigest(token)}`;
    bindings.set(claims, binding);
  }
  return binding;
}
