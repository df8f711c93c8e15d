import type { ServerContext } from "@conduit-ai/server-core";

/** Request headers as one string each, for the upstream request. */
export function headersOf(ctx: ServerContext): Record<string, string> {
  const headers: Record<string, string> = {};
  const incoming = ctx.headers;
  for (const name in incoming) {
    const value = incoming[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** The client's query string, rebuilt from the parsed query (`?beta=true`). */
export function searchOf(ctx: ServerContext): string {
  // Nearly every call has no query: no URLSearchParams for it.
  if (!hasKeys(ctx.query)) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(ctx.query)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function hasKeys(record: object): boolean {
  for (const _key in record) return true;
  return false;
}
