import type { MatchRule } from "./match-rules.js";

/** The characters of every detector's `hintChars`, as a lookup by character code. */
export interface HintChars {
  /** 1 at the code of each ASCII hint character. */
  ascii: Uint8Array;
  /** A hint character beyond ASCII exists: every such character then counts as one (a wider test only scans more). */
  beyondAscii: boolean;
  /**
   * 1 at each byte of UTF-8 text that may belong to a hint character: the ASCII ones, and every
   * byte from 0x80 when `beyondAscii` (a multi-byte character's bytes are all 0x80 and above).
   * A relay reading text from bytes tests them here (`StreamScanner.push(delta, true)`).
   */
  utf8: Uint8Array;
}

const tables = new WeakMap<readonly MatchRule[], HintChars | null>();

/**
 * The hint characters of `rules` (undefined when a detector names none, a `regex` rule's): text
 * without any of them holds no detector's hint, so a stream's scanner skips the hints and the
 * patterns for it. A table, not a character class: tested a character at a time, a delta of
 * prose costs one look-up per character and no call into the regular expression engine.
 */
export function hintCharsOf(rules: readonly MatchRule[]): HintChars | undefined {
  let found = tables.get(rules);
  if (found === undefined) {
    const detectors = rules.flatMap((rule) => rule.detectors);
    found = null;
    if (detectors.every((detector) => detector.hint && detector.hintChars)) {
      const ascii = new Uint8Array(128);
      let beyondAscii = false;
      for (const detector of detectors)
        for (const char of detector.hintChars ?? "") {
          const code = char.charCodeAt(0);
          if (code < 128) ascii[code] = 1;
          else beyondAscii = true;
        }
      const utf8 = new Uint8Array(256);
      utf8.set(ascii);
      if (beyondAscii) utf8.fill(1, 128);
      found = { ascii, beyondAscii, utf8 };
    }
    tables.set(rules, found);
  }
  return found ?? undefined;
}

/** Where the last hint character of `text` at or after `from` is, or -1 when it has none. */
export function lastHintCharIn(hintChars: HintChars, text: string, from = 0): number {
  const ascii = hintChars.ascii;
  for (let index = text.length - 1; index >= from; index--) {
    const code = text.charCodeAt(index);
    if (code < 128 ? ascii[code] === 1 : hintChars.beyondAscii) return index;
  }
  return -1;
}
