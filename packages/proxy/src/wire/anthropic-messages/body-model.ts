const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** Index after the string starting at `start` (a quote), or -1 when it never ends. */
function endOfString(bytes: Uint8Array, start: number): number {
  for (let index = start + 1; index < bytes.length; index++) {
    if (bytes[index] === BACKSLASH) index++;
    else if (bytes[index] === QUOTE) return index + 1;
  }
  return -1;
}

/** Index after the value starting at `start` (nested objects, arrays and strings skipped whole). */
function endOfValue(bytes: Uint8Array, start: number): number {
  let depth = 0;
  for (let index = start; index < bytes.length; index++) {
    const byte = bytes[index]!;
    if (byte === QUOTE) {
      index = endOfString(bytes, index) - 1;
      if (index < 0) return -1;
      if (depth === 0) return index + 1;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
    else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (depth === 0) return index;
      depth--;
      if (depth === 0) return index + 1;
    } else if (depth === 0 && byte === COMMA) return index;
  }
  return -1;
}

const skipSpace = (bytes: Uint8Array, index: number) => {
  let at = index;
  while (isSpace(bytes[at])) at++;
  return at;
};

/**
 * The top-level `model` of a JSON request body without parsing the rest: the Messages surface
 * routes on it, and an agent's body (hundreds of KB) names its model first. Anything that is not
 * a JSON object with a string `model` gives undefined.
 *
 * @example
 * topLevelModelOf(new TextEncoder().encode('{"model":"fast","messages":[]}')); // "fast"
 */
export function topLevelModelOf(bytes: Uint8Array): string | undefined {
  let index = skipSpace(bytes, 0);
  if (bytes[index] !== OPEN_BRACE) return undefined;
  index++;
  for (;;) {
    index = skipSpace(bytes, index);
    if (bytes[index] !== QUOTE) return undefined;
    const keyEnd = endOfString(bytes, index);
    if (keyEnd < 0) return undefined;
    const key = Buffer.from(bytes.buffer, bytes.byteOffset + index, keyEnd - index).toString("utf8");
    // A key spelled with escapes (`"mod\u0065l"`) is still `model`.
    const name = key.includes("\\") ? (JSON.parse(key) as string) : key.slice(1, -1);
    index = skipSpace(bytes, keyEnd);
    if (bytes[index] !== COLON) return undefined;
    index = skipSpace(bytes, index + 1);
    const valueEnd = endOfValue(bytes, index);
    if (valueEnd < 0) return undefined;
    if (name === "model") {
      if (bytes[index] !== QUOTE) return undefined;
      try {
        return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + index, valueEnd - index).toString("utf8")) as string;
      } catch {
        return undefined;
      }
    }
    index = skipSpace(bytes, valueEnd);
    if (bytes[index] !== COMMA) return undefined;
    index++;
  }
}

/** The body with another `model` (an alias resolved to its target); parsed and written once. */
export function withModel(bytes: Uint8Array, model: string): Uint8Array {
  const body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")) as Record<string, unknown>;
  return new TextEncoder().encode(JSON.stringify({ ...body, model }));
}
