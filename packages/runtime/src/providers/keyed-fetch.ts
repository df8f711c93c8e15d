import type { KeyLease, KeySource } from "@conduit-ai/server-core";

/** Answers about the key rather than the request: another key of a pool may succeed. */
const KEY_REFUSALS = new Set([401, 403, 429]);

/** Stands in for the API key the AI SDK packages insist on at creation; the keyed fetch replaces it on every request. */
export const PLACEHOLDER_API_KEY = "conduit-key-from-key-source";

const REDACTED = "[redacted]";

/** An error answer whose body no longer holds `key` (some vendors echo the key they refused). */
async function withoutKey(response: Response, key: string): Promise<Response> {
  const text = await response.text();
  if (!text.includes(key)) return new Response(text, response);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(text.replaceAll(key, REDACTED), { status: response.status, statusText: response.statusText, headers });
}

function isReplayable(body: RequestInit["body"]): boolean {
  return body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer;
}

/**
 * The `fetch` a provider's package is built with: before each request it takes a key from
 * `keys` and sets the credential header (`header(key)`), after it reports the status and headers
 * to the source (so a pool can cool or retire that key), and it removes the key from any error
 * body before the package reads it — a vendor's message passes through to the caller, its
 * credential never. A pool's refused key (429, 401, 403) is replaced by another for the same
 * request, up to `keys.keys` attempts. Without `keys` (Bedrock and Vertex sign their own requests) it only reports nothing and redacts nothing.
 *
 * @example
 * const fetch = keyedFetch(singleKeySource("gsk-…"), (key) => ["authorization", `Bearer ${key}`]);
 */
export function keyedFetch(
  keys: KeySource | undefined,
  header: ((key: string) => [name: string, value: string]) | undefined,
  base: typeof fetch = globalThis.fetch,
): typeof fetch {
  if (keys === undefined || header === undefined) return (input, init) => base(input, init);
  return async (input, init) => {
    // A stream body can be sent once: then the refusal is the answer.
    const attempts = isReplayable(init?.body) ? Math.max(1, keys.keys ?? 1) : 1;
    let refused: Response | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let lease: KeyLease;
      try {
        lease = await keys.pick(init?.signal ?? undefined);
      } catch (error) {
        // Every other key is cooling or disabled: the refusal already in hand is the answer.
        if (refused !== undefined) return refused;
        throw error;
      }
      const headers = new Headers(init?.headers);
      const [name, value] = header(lease.key);
      headers.set(name, value);
      let response: Response;
      try {
        response = await base(input, { ...init, headers });
      } catch (error) {
        lease.report({});
        throw error;
      }
      lease.report({ status: response.status, headers: response.headers });
      if (response.status < 400) return response;
      const answer = await withoutKey(response, lease.key);
      if (!KEY_REFUSALS.has(response.status) || attempt === attempts) return answer;
      // This key is cooling or retired now; the pool hands out another for the same request.
      refused = answer;
    }
    return refused as Response;
  };
}
