/**
 * Reads one header from any `TokenSource` (a context, a Node or Fetch request, a bare header
 * map). Kept apart from the provider class: it is the only place that knows the source shapes.
 */
import type { TokenSource } from "../types.js";

/** The first value of header `name` (lower-case) in `source`, looked up case-insensitively. */
export function headerFromTokenSource(source: TokenSource, name: string): string | undefined {
  if ("header" in source && typeof source.header === "function") return source.header(name) ?? undefined;
  const headers = "headers" in source && typeof source.headers === "object" && source.headers !== null ? source.headers : source;
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(name) ?? undefined;
  // Node lower-cases header names; a plain map may not, so look case-insensitively.
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}
