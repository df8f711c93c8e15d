const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

function skipSpace(text: string, from: number): number {
  let index = from;
  for (;;) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return index;
    index++;
  }
}

/** Index after the string whose opening quote is at `start`, or -1. Jumps quote to quote: strings are most of a body. */
function endOfString(text: string, start: number): number {
  let quote = start;
  for (;;) {
    quote = text.indexOf('"', quote + 1);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
}

/** Index of the `,` or `}` ending the member value starting at `start`, or -1. */
function endOfValue(text: string, start: number): number {
  let depth = 0;
  for (let index = start; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = endOfString(text, index) - 1;
      if (index < 0) return -1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      if (depth === 0) return index;
      depth--;
    } else if (code === COMMA && depth === 0) return index;
  }
  return -1;
}

/**
 * The first top-level member name a JSON object text repeats, or undefined. `JSON.parse` keeps
 * the last of two `"model"` keys and some upstream parsers the first, so a gated body that
 * repeats one would be checked on one value and served on another: the surfaces refuse it. One
 * pass over the top level only (nested values and strings are skipped whole); text that is not
 * a JSON object gives undefined, for the parser to answer.
 *
 * @example
 * duplicateTopLevelKey('{"model":"claude-opus-4","model":"claude-haiku-4-5"}'); // "model"
 */
export function duplicateTopLevelKey(text: string): string | undefined {
  let index = skipSpace(text, 0);
  if (text.charCodeAt(index) !== OPEN_BRACE) return undefined;
  const seen = new Set<string>();
  index = skipSpace(text, index + 1);
  if (text.charCodeAt(index) === CLOSE_BRACE) return undefined;
  for (;;) {
    if (text.charCodeAt(index) !== QUOTE) return undefined;
    const keyEnd = endOfString(text, index);
    if (keyEnd < 0) return undefined;
    const raw = text.slice(index, keyEnd);
    let name: string;
    try {
      // A name spelled with escapes (`"mod\u0065l"`) is the same name.
      name = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    } catch {
      return undefined;
    }
    if (seen.has(name)) return name;
    seen.add(name);
    index = skipSpace(text, keyEnd);
    if (text.charCodeAt(index) !== COLON) return undefined;
    const valueEnd = endOfValue(text, skipSpace(text, index + 1));
    if (valueEnd < 0 || text.charCodeAt(valueEnd) === CLOSE_BRACE) return undefined;
    index = skipSpace(text, valueEnd + 1);
  }
}
