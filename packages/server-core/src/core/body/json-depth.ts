const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * True when JSON text nests arrays and objects deeper than `maxDepth`, checked in one pass
 * before parsing: a small body nested 10 000 levels is cheap for `JSON.parse` but overflows
 * the stack of everything recursive afterwards (validation, serialization, logging).
 * Brackets inside strings do not count. Malformed text is left to `JSON.parse`.
 *
 * @example
 * jsonDepthExceeds('{"a":[1]}', 1); // true: the array is level 2
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  // Every level needs at least two characters: short texts cannot be too deep.
  if (text.length <= maxDepth * 2) return false;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return false;
}

/**
 * The same rule for a value already parsed (by a user's own body parser), walked without
 * recursion. Cycles cannot come from a parser; a visited set still guards against them.
 */
export function valueDepthExceeds(value: unknown, maxDepth: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  const stack: Array<[object, number]> = [[value, 1]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [object, number];
    if (depth > maxDepth) return true;
    if (seen.has(current)) continue;
    seen.add(current);
    for (const child of Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
