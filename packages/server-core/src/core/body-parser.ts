import { ServerValidationError, payloadTooLarge, unsupportedMediaType } from "../errors/server-errors.js";

/** Where the body comes from: a byte stream, or a value the framework already parsed. */
export type BodySource =
  | { kind: "none" }
  | { kind: "stream"; stream: AsyncIterable<Uint8Array> }
  | { kind: "parsed"; value: unknown };

export interface ReadBodyOptions {
  limit: number;
  contentType: string | undefined;
  contentLength: string | undefined;
}

/** Reads at most `limit` bytes; more → 413 without buffering the rest. */
async function collect(stream: AsyncIterable<Uint8Array>, limit: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    if (size > limit) throw payloadTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parseForm(text: string): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const existing = result[key];
    result[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return result;
}

/**
 * Reads and parses a request body: JSON (also when no content type is given), form
 * data and text. Empty → undefined. Malformed JSON → 400, too large → 413, other media → 415.
 */
export async function readRequestBody(source: BodySource, options: ReadBodyOptions): Promise<unknown> {
  if (source.kind === "none") return undefined;
  if (source.kind === "parsed") return source.value;
  const declared = Number(options.contentLength);
  if (Number.isFinite(declared) && declared > options.limit) throw payloadTooLarge(options.limit);
  const mediaType = (options.contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const isJson = mediaType === "" || mediaType === "application/json" || mediaType.endsWith("+json");
  const isForm = mediaType === "application/x-www-form-urlencoded";
  const isText = mediaType.startsWith("text/");
  const raw = await collect(source.stream, options.limit);
  if (raw.byteLength === 0) return undefined;
  if (!isJson && !isForm && !isText) throw unsupportedMediaType(mediaType);
  const text = raw.toString("utf8");
  if (isForm) return parseForm(text);
  if (isText) return text;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ServerValidationError("Malformed JSON body", [
      { field: "body", message: error instanceof Error ? error.message : "invalid JSON" },
    ]);
  }
}

export function parseQuery(search: string): Record<string, string | string[]> {
  return search === "" ? {} : parseForm(search);
}
