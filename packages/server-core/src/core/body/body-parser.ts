import type { Readable } from "node:stream";
import { ServerValidationError, payloadTooLarge, unsupportedMediaType } from "../../errors/server-errors.js";
import { jsonDepthExceeds, valueDepthExceeds } from "./json-depth.js";
import { isUnreadNodeStream, readEventsUpTo } from "./read-events.js";

/** Where the body comes from: a byte stream, or a value the framework already parsed. */
export type BodySource = { kind: "none" } | { kind: "stream"; stream: AsyncIterable<Uint8Array> } | { kind: "parsed"; value: unknown };

/** The default `bodyParser.maxDepth`: deeper JSON is refused before anything recurses over it. */
export const DEFAULT_MAX_BODY_DEPTH = 64;

export interface ReadBodyOptions {
  limit: number;
  contentType: string | undefined;
  contentLength: string | undefined;
  /** Deepest nesting of arrays and objects accepted in a JSON body (default 64). */
  maxDepth?: number;
}

/**
 * The chunks of a body stream. A Node stream is read without `destroyOnReturn`: stopping at
 * the limit must not destroy the request (and with it the socket) before the 413 is sent.
 */
function chunksOf(stream: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const readable = stream as Partial<Pick<Readable, "iterator">> & AsyncIterable<Uint8Array>;
  return typeof readable.iterator === "function" ? readable.iterator({ destroyOnReturn: false }) : stream;
}

/** Reads at most `limit` bytes; more → 413 without buffering the rest. */
async function collect(stream: AsyncIterable<Uint8Array>, limit: number): Promise<Buffer> {
  if (isUnreadNodeStream(stream)) {
    const read = await readEventsUpTo(stream, limit);
    if (read.overLimit) throw payloadTooLarge(limit);
    return Buffer.concat(read.chunks);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunksOf(stream)) {
    size += chunk.byteLength;
    if (size > limit) throw payloadTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * `a=1&a=2&b=3` as a prototype-free object: `__proto__`, `constructor` or `hasOwnProperty`
 * are plain keys, and repeated keys collect into an array in linear time.
 */
export function parseForm(text: string): Record<string, string | string[]> {
  const result = Object.create(null) as Record<string, string | string[]>;
  for (const [key, value] of new URLSearchParams(text)) {
    const existing = result[key];
    if (existing === undefined) result[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else result[key] = [existing, value];
  }
  return result;
}

function tooDeep(maxDepth: number): ServerValidationError {
  return new ServerValidationError(`JSON body nested deeper than ${maxDepth} levels`, [
    { field: "body", message: `nesting deeper than ${maxDepth} levels (bodyParser.maxDepth)` },
  ]);
}

/**
 * Reads and parses a request body: JSON (also when no content type is given), form
 * data and text. Empty → undefined. Malformed or too deeply nested JSON → 400, too large →
 * 413, other media → 415.
 */
export async function readRequestBody(source: BodySource, options: ReadBodyOptions): Promise<unknown> {
  if (source.kind === "none") return undefined;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_BODY_DEPTH;
  if (source.kind === "parsed") {
    // A user's own body parser may have accepted anything: the same depth rule applies.
    if (valueDepthExceeds(source.value, maxDepth)) throw tooDeep(maxDepth);
    return source.value;
  }
  return parseRawBody(await readRawRequestBody(source, options), options);
}

/**
 * The body's bytes exactly as the client sent them (proxies forward them unparsed), at most
 * `limit` bytes (more → 413). A body a user's own parser already consumed is only available
 * as that parser left it: bytes or text as is, anything else re-encoded as JSON.
 */
export async function readRawRequestBody(
  source: BodySource,
  options: Pick<ReadBodyOptions, "limit" | "contentLength">,
): Promise<Uint8Array | undefined> {
  if (source.kind === "none") return undefined;
  if (source.kind === "parsed") {
    const value = source.value;
    if (value === undefined || value === null) return undefined;
    if (value instanceof Uint8Array) return value;
    return Buffer.from(typeof value === "string" ? value : JSON.stringify(value));
  }
  const declared = Number(options.contentLength);
  if (Number.isFinite(declared) && declared > options.limit) throw payloadTooLarge(options.limit);
  const raw = await collect(source.stream, options.limit);
  return raw.byteLength === 0 ? undefined : raw;
}

/** Parses bytes read by `readRawRequestBody` the way `readRequestBody` does (JSON, form, text). */
export function parseRawBody(bytes: Uint8Array | undefined, options: Pick<ReadBodyOptions, "contentType" | "maxDepth">): unknown {
  if (bytes === undefined || bytes.byteLength === 0) return undefined;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_BODY_DEPTH;
  const mediaType = (options.contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const isJson = mediaType === "" || mediaType === "application/json" || mediaType.endsWith("+json");
  const isForm = mediaType === "application/x-www-form-urlencoded";
  const isText = mediaType.startsWith("text/");
  const raw = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isJson && !isForm && !isText) throw unsupportedMediaType(mediaType);
  const text = raw.toString("utf8");
  if (isForm) return parseForm(text);
  if (isText) return text;
  if (jsonDepthExceeds(text, maxDepth)) throw tooDeep(maxDepth);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ServerValidationError("Malformed JSON body", [
      { field: "body", message: error instanceof Error ? error.message.slice(0, 200) : "invalid JSON" },
    ]);
  }
}

export function parseQuery(search: string): Record<string, string | string[]> {
  return search === "" ? (Object.create(null) as Record<string, string | string[]>) : parseForm(search);
}
