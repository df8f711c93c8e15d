import { promisify } from "node:util";
import { brotliCompress, constants, deflate, gzip } from "node:zlib";
import type { ServerContext } from "../contracts/context.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import { middlewareFromHooks } from "../core/pipeline/middleware-hooks.js";

export type CompressionEncoding = "br" | "gzip" | "deflate";

export interface CompressionOptions {
  /** Bodies smaller than this many bytes are sent as is (default 1024). */
  threshold?: number;
  /** Encodings offered, in server preference on equal client weight (default br, gzip, deflate). */
  encodings?: CompressionEncoding[];
}

const compressors: Record<CompressionEncoding, (input: Uint8Array) => Promise<Buffer>> = {
  // Quality 4 keeps brotli near gzip's speed; the default 11 is for static assets.
  br: (input) => promisify(brotliCompress)(input, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: (input) => promisify(gzip)(input),
  deflate: (input) => promisify(deflate)(input),
};

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml|x-ndjson|x-yaml|yaml|problem\+json|[a-z.+-]*\+(json|xml)))/i;

/**
 * The client's best acceptable encoding by `Accept-Encoding` q-values, or undefined.
 *
 * @example
 * negotiateEncoding("gzip;q=0.5, br", ["br", "gzip"]); // "br"
 */
export function negotiateEncoding(header: string | undefined, offered: readonly CompressionEncoding[]): CompressionEncoding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name = "", ...parameters] = part.trim().toLowerCase().split(";");
    const quality = parameters.map((item) => item.trim()).find((item) => item.startsWith("q="));
    const weight = quality === undefined ? 1 : Number(quality.slice(2));
    if (name) weights.set(name.trim(), Number.isNaN(weight) ? 0 : weight);
  }
  let best: CompressionEncoding | undefined;
  let bestWeight = 0;
  for (const encoding of offered) {
    const weight = weights.get(encoding) ?? weights.get("*") ?? 0;
    if (weight > bestWeight) {
      best = encoding;
      bestWeight = weight;
    }
  }
  return best;
}

/**
 * Compression (order 5): gzip, deflate or br by `Accept-Encoding` for text-like bodies of
 * at least `threshold` bytes; sets `Content-Encoding`, drops `Content-Length`, and marks
 * every body of that size `Vary: Accept-Encoding` (compressed or not: it depends on the client).
 * Streams (SSE, NDJSON, raw streams) are never buffered nor compressed.
 *
 * @example
 * adapter.registerMiddleware(createCompressionMiddleware({ threshold: 2048, encodings: ["gzip"] }));
 */
export function createCompressionMiddleware(options: CompressionOptions = {}): MiddlewareDefinition {
  const threshold = options.threshold ?? 1024;
  const encodings = options.encodings ?? ["br", "gzip", "deflate"];
  // Synchronous until a body is actually compressed: most answers (small JSON, streams) return at once.
  const compress = (ctx: ServerContext): Promise<void> | undefined => {
    const response = ctx.response;
    if (response.streaming || response.body === null || (typeof response.body === "object" && !(response.body instanceof Uint8Array)))
      return;
    if (response.status < 200 || response.status === 204 || response.status === 304) return;
    if (response.headers["content-encoding"] !== undefined) return;
    const contentType = response.headers["content-type"];
    if (typeof contentType !== "string" || !isCompressible(contentType)) return;
    const body = response.body;
    // Below the threshold the body is sent as is whatever the client accepts, so it does not
    // vary by Accept-Encoding. Most JSON answers are: a string of under threshold/3 UTF-16
    // units is (at most 3 bytes each), else its bytes are counted without copying.
    if (typeof body === "string" ? body.length * 3 < threshold || Buffer.byteLength(body) < threshold : body.byteLength < threshold) return;
    appendVary(response.headers, "Accept-Encoding");
    const encoding = negotiateEncoding(ctx.header("accept-encoding"), encodings);
    if (!encoding) return;
    return compressors[encoding](typeof body === "string" ? Buffer.from(body) : body).then((compressed) => {
      response.body = compressed;
      response.headers["content-encoding"] = encoding;
      delete response.headers["content-length"];
    });
  };
  return middlewareFromHooks({ name: "compression", order: 5 }, { after: compress });
}

/** The last answer's content type is nearly always the next one's: remembered, not re-matched. */
let lastContentType = "";
let lastCompressible = false;
function isCompressible(contentType: string): boolean {
  if (contentType !== lastContentType) {
    lastContentType = contentType;
    lastCompressible = COMPRESSIBLE.test(contentType);
  }
  return lastCompressible;
}

function appendVary(headers: Record<string, string | string[]>, value: string): void {
  const existing = headers.vary;
  if (existing === undefined) {
    headers.vary = value;
    return;
  }
  const current = Array.isArray(existing) ? existing.join(", ") : (existing ?? "");
  if (current.split(",").some((item) => item.trim().toLowerCase() === value.toLowerCase() || item.trim() === "*")) return;
  headers.vary = current ? `${current}, ${value}` : value;
}
