import type { MessagesStreamEvent } from "../../wire/anthropic-messages/messages-answer.js";

/**
 * A fixed run of bytes (at least four), compared four at a time (one frame's head is 75 bytes: a
 * byte loop or `Buffer.compare` per frame showed in profiles); a length that is no multiple of
 * four ends with one more word, overlapping the one before. Little-endian words: read as the
 * machine holds them, no byte swap (equality does not care about the order).
 */
class BytePattern {
  readonly length: number;
  private readonly words: Int32Array;
  private readonly lastWord: number;

  constructor(text: string) {
    const bytes = Buffer.from(text, "latin1");
    this.length = bytes.length;
    const view = new DataView(bytes.buffer, bytes.byteOffset, this.length);
    this.words = Int32Array.from({ length: this.length >> 2 }, (_, index) => view.getInt32(index * 4, true));
    this.lastWord = view.getInt32(this.length - 4, true);
  }

  /** True when the pattern is at `position` of the bytes `view` shows; the caller checked the length. */
  at(view: DataView, position: number): boolean {
    const words = this.words;
    for (let index = 0; index < words.length; index++) if (view.getInt32(position + index * 4, true) !== words[index]) return false;
    return view.getInt32(position + this.length - 4, true) === this.lastWord;
  }
}

const HEAD = new BytePattern('event: content_block_delta\ndata: {"type":"content_block_delta","index":');
const FIELD = new BytePattern(',"delta":{"type":"text_delta","text":"');
const TAIL = new BytePattern('"}}\n\n');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Below a space: a raw control character is not JSON, and a line break would end the frame early. */
const SPACE = 0x20;

/** Set by `textEnd`: the text had a byte beyond ASCII (decoded as UTF-8, not latin1). */
let nonAscii = false;
/** Set by `textEnd`: non-zero when a byte of the text is marked in the hint bytes it was given. */
let hinted = 0;

/**
 * Where the JSON string from `start` ends (its closing quote), or -1 when it holds an escape or
 * a control character (or does not end in `bytes`). Four bytes at a time: a word with no quote,
 * backslash or byte below 0x20 is told by three subtractions and masks (the bit-twiddling
 * "has a byte less than n" test), so prose costs a quarter of a byte loop. With `hintBytes`, each
 * byte is looked up there in the same pass (a second loop over the text showed in profiles).
 */
function textEnd(bytes: Buffer, view: DataView, start: number, length: number, hintBytes: Uint8Array | undefined): number {
  let high = 0;
  let hints = 0;
  let position = start;
  for (const last = length - 4; position <= last; position += 4) {
    const word = view.getInt32(position, true);
    const quote = word ^ 0x22222222;
    const backslash = word ^ 0x5c5c5c5c;
    if ((((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash) | ((word - 0x20202020) & ~word)) & 0x80808080) break;
    high |= word;
    if (hintBytes)
      hints |=
        (hintBytes[word & 0xff] as number) |
        (hintBytes[(word >>> 8) & 0xff] as number) |
        (hintBytes[(word >>> 16) & 0xff] as number) |
        (hintBytes[word >>> 24] as number);
  }
  nonAscii = (high & 0x80808080) !== 0;
  for (; position < length; position++) {
    const byte = bytes[position] as number;
    if (byte === QUOTE) {
      hinted = hints;
      return position;
    }
    if (byte === BACKSLASH || byte < SPACE) return -1;
    if (byte > 0x7f) nonAscii = true;
    if (hintBytes) hints |= hintBytes[byte] as number;
  }
  return -1;
}

/** Where the text delta `textDeltaFrameAt` read ends, and what its text holds (set on each read: no object per frame). */
export interface TextDeltaCursor {
  end: number;
  /** The text holds no byte marked in the hint bytes given (false when none were). */
  hintFree: boolean;
  /**
   * The bytes from `latin1From` to their end decoded as latin1 (a character per byte), made at the
   * first ASCII text read in them: each such text is then a slice of it, not a decode of its own
   * (one per event showed in profiles). The caller clears it (undefined) whenever the bytes change.
   */
  latin1?: string | undefined;
  latin1From?: number;
}

/**
 * The text delta framed exactly as the Messages API writes it that starts at `start` of `bytes`,
 * read without a JSON parse when its text has no escape, quote or control character (then the
 * JSON string is the text itself, and only it is decoded); undefined for any other frame or an
 * unfinished one, which the caller frames and parses in full. `view` is a DataView over `bytes`;
 * with `hintBytes` (a guardrail set's `HintChars.utf8`) the text's bytes are tested for hint
 * characters while they are at hand, so the scanner need not test the string again. `length`:
 * where the bytes read end (a caller reading a copy held in a larger buffer says where it ends).
 */
export function textDeltaFrameAt(
  bytes: Buffer,
  view: DataView,
  start: number,
  cursor: TextDeltaCursor,
  hintBytes?: Uint8Array,
  length = bytes.length,
): MessagesStreamEvent | undefined {
  let position = start + HEAD.length;
  if (position + 1 + FIELD.length + TAIL.length > length || !HEAD.at(view, start)) return undefined;
  let index = 0;
  const digitsEnd = Math.min(position + 9, length);
  for (; position < digitsEnd; position++) {
    const byte = bytes[position] as number;
    if (byte < 0x30 || byte > 0x39) break;
    index = index * 10 + byte - 0x30;
  }
  if (position === start + HEAD.length || position + FIELD.length > length || !FIELD.at(view, position)) return undefined;
  const textStart = position + FIELD.length;
  const quote = textEnd(bytes, view, textStart, length, hintBytes);
  if (quote < 0) return undefined;
  const end = quote + TAIL.length;
  if (end > length || !TAIL.at(view, quote)) return undefined;
  cursor.end = end;
  cursor.hintFree = hintBytes !== undefined && hinted === 0;
  let text: string;
  if (nonAscii) text = bytes.toString("utf8", textStart, quote);
  else {
    // ASCII reads the same as latin1, whose offsets are the bytes' own.
    if (cursor.latin1 === undefined) {
      cursor.latin1 = bytes.toString("latin1", start, length);
      cursor.latin1From = start;
    }
    const from = cursor.latin1From ?? 0;
    text = cursor.latin1.slice(textStart - from, quote - from);
  }
  return { type: "content_block_delta", index, delta: { type: "text_delta", text } };
}
