import type { KeySource } from "@conduit-ai/server-core";

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

/**
 * The `fetch` a provider's package is built with: before each request it takes a key from
 * `keys` and sets the credential header (`header(key)`), after it reports the status and headers
 * to the source (so a pool can cool or retire that key), and it removes the key from any error
 * body before the package reads it — a vendor's message passes through to the caller, its
 * credential never. Without `keys` (Bedrock and Vertex sign their own requests) it only reports nothing and redacts nothing.
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
    const lease = await keys.pick(init?.signal ?? undefined);
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
    return response.status >= 400 ? withoutKey(response, lease.key) : response;
  };
}
