import type { Detector } from "./detectors/detector.js";
import { type HintChars, hintCharsOf, lastHintCharIn } from "./hint-chars.js";
import { type GuardrailHit, type MatchRule, detectorsOf, hintsUnionOf, hitOf, resolveSpans, spansOf } from "./match-rules.js";

/** What a delta released: the text safe to send now, or the hit that ends the stream. */
export interface ScanStep {
  text: string;
  block?: GuardrailHit;
  /** Characters of the pushed text this step released (masked or not). */
  consumed: number;
  /** True when `text` is exactly the `consumed` characters as they came (nothing masked). */
  verbatim: boolean;
}

export interface StreamScannerOptions {
  /**
   * Release whole deltas only (the cut lowered to a delta's end) unless a match forces it
   * elsewhere: a relay can then send most events as the bytes that brought them.
   */
  alignToDeltas?: boolean;
}

/** Characters of already-sent text kept as context, so a pattern's look-behind sees what came before. */
const CONTEXT_CHARS = 32;
/** Characters kept while inside a private key block, so its END line is found when split. */
const CLOSE_TAIL_CHARS = 64;
/** Longer than any detector's hint: a hint split between held text and a new delta is still seen. */
const HINT_OVERLAP_CHARS = 16;

/**
 * Scans one streamed text (a content block) delta by delta. It holds back the last `window`
 * characters, so anything up to that long that is split across deltas is still whole when
 * scanned; text before the window is released, masked. A match still growing at the end of
 * what has arrived (a long JWT) is held until it ends, up to eight windows; inside a private
 * key block everything is masked until its END line. With `alignToDeltas` the window is rounded
 * up to whole deltas.
 *
 * Held text stays the deltas as they came (no string grows per delta): while no detector's hint
 * has arrived, a delta costs one look-up per character and the release of whole deltas; only
 * once a hint is in the window are the held deltas joined and scanned with the patterns.
 *
 * @example
 * const scanner = new StreamScanner(rules, 256);
 * send(scanner.push("key: AKIA").text); send(scanner.push("IOSFODNN7EXAMPLE.").text); send(scanner.flush().text);
 */
export class StreamScanner {
  readonly hits: GuardrailHit[] = [];
  /** Text already sent, ending with the context (it may hold up to twice as much: see `releaseQuiet`). */
  private context = "";
  /** The held text, one piece per delta (with `alignToDeltas` a release stops only at a piece's end). */
  private pieces: string[] = [];
  private piecesLength = 0;
  /** Held text after the pieces that ends at no delta's end (what followed a key's END line): joined to the next delta. */
  private loose = "";
  /** Characters at the end of the text so far known to hold no hint character (a lower bound). */
  private quietTail = 0;
  private closing: RegExp | undefined;
  private blocked: GuardrailHit | undefined;
  /** Detectors whose hint is somewhere in the buffer; the others need only the new text tested. */
  private readonly armed = new Set<Detector>();
  private readonly detectors: readonly Detector[];
  private readonly anyHint: RegExp | undefined;
  /** The characters any detector's hint needs (undefined when one has no hint): see `push`. */
  readonly hintChars: HintChars | undefined;
  private readonly aligned: boolean;
  private readonly isScanned = (detector: Detector) => !detector.hint || this.armed.has(detector);

  constructor(
    private readonly rules: readonly MatchRule[],
    private readonly window: number,
    options: StreamScannerOptions = {},
  ) {
    this.detectors = detectorsOf(rules);
    this.anyHint = hintsUnionOf(rules);
    this.hintChars = this.anyHint ? hintCharsOf(rules) : undefined;
    this.aligned = options.alignToDeltas ?? false;
  }

  /** Characters held back now (never more than the window, except a match still growing). */
  get heldLength(): number {
    return this.piecesLength + this.loose.length;
  }

  /**
   * The next delta. `hintFree`: the caller found none of the hint characters (`hintChars`) in
   * it, as a relay that reads deltas from bytes can while it reads them; it is not tested again.
   */
  push(delta: string, hintFree = false): ScanStep {
    return this.release(delta, false, hintFree);
  }

  /** The end of the text: everything held is scanned as final and released. */
  flush(): ScanStep {
    return this.release("", true);
  }

  private release(delta: string, final: boolean, hintFree = false): ScanStep {
    if (this.blocked) return { text: "", block: this.blocked, consumed: 0, verbatim: false };
    const quiet = this.closing === undefined && this.armed.size === 0 && this.hintChars !== undefined && !this.mayArm(delta, hintFree);
    if (delta.length > 0) {
      this.pieces.push(this.loose + delta);
      this.piecesLength += this.loose.length + delta.length;
      this.loose = "";
    }
    return quiet && this.loose === "" ? this.releaseQuiet(final) : this.releaseScanned(delta.length, final);
  }

  /**
   * False when no detector can be armed by `delta`: it holds no hint character, nor do the
   * characters just before it (a hint split between them, `aw` + `s`). Otherwise the hints'
   * union over both decides. Everything earlier was tested when it arrived.
   */
  private mayArm(delta: string, hintFree: boolean): boolean {
    const last = hintFree ? -1 : lastHintCharIn(this.hintChars as HintChars, delta);
    if (last === -1 && this.quietTail >= HINT_OVERLAP_CHARS) {
      this.quietTail += delta.length;
      return false;
    }
    if ((this.anyHint as RegExp).test(this.tailOf(HINT_OVERLAP_CHARS) + delta)) return true;
    this.quietTail = last === -1 ? this.quietTail + delta.length : delta.length - 1 - last;
    return false;
  }

  /** The last `count` characters before the next delta (context included). */
  private tailOf(count: number): string {
    let tail = this.loose;
    for (let index = this.pieces.length - 1; index >= 0 && tail.length < count; index--) tail = (this.pieces[index] as string) + tail;
    if (tail.length < count) tail = this.context + tail;
    return tail.length > count ? tail.slice(-count) : tail;
  }

  /** Nothing can match: the pieces the window no longer covers leave as they came (a part of one without `alignToDeltas`). */
  private releaseQuiet(final: boolean): ScanStep {
    const pieces = this.pieces;
    const limit = final ? this.piecesLength : this.piecesLength - this.window;
    let count = 0;
    let released = 0;
    while (count < pieces.length && released + (pieces[count] as string).length <= limit) released += (pieces[count++] as string).length;
    let text = count === 0 ? "" : count === 1 ? (pieces[0] as string) : pieces.slice(0, count).join("");
    // shift, not splice: splice allocates the array it removes, and this runs per delta.
    for (let index = 0; index < count; index++) pieces.shift();
    if (!this.aligned && released < limit) {
      const first = pieces[0] as string;
      const part = limit - released;
      text += first.slice(0, part);
      pieces[0] = first.slice(part);
      released = limit;
    }
    if (released === 0) return { text: "", consumed: 0, verbatim: true };
    this.piecesLength -= released;
    // The released text itself when long enough, not a slice of it: cut to the context only when scanned.
    const sent = text.length >= CONTEXT_CHARS ? text : this.context + text;
    this.context = sent.length > 2 * CONTEXT_CHARS ? sent.slice(-CONTEXT_CHARS) : sent;
    return { text, consumed: released, verbatim: true };
  }

  /**
   * Which detectors' hints the buffer holds. Everything but the new delta was in the previous
   * buffer, so an unarmed detector's hint can only be in the delta (or straddle into it).
   */
  private arm(buffer: string, added: number): void {
    const fresh = buffer.length - added - HINT_OVERLAP_CHARS <= 0 ? buffer : buffer.slice(buffer.length - added - HINT_OVERLAP_CHARS);
    if (this.armed.size === 0 && this.anyHint) {
      if (this.hintChars && lastHintCharIn(this.hintChars, fresh) === -1) return;
      if (!this.anyHint.test(fresh)) return;
    }
    for (const detector of this.detectors) {
      const hint = detector.hint;
      if (!hint) continue;
      const armed = this.armed.has(detector);
      if (hint.test(armed ? buffer : fresh)) this.armed.add(detector);
      else if (armed) this.armed.delete(detector);
    }
  }

  /** Where each held piece ends, in the held text's characters. */
  private endsOfPieces(): number[] {
    const ends: number[] = [];
    let end = 0;
    for (const piece of this.pieces) {
      end += piece.length;
      ends.push(end);
    }
    return ends;
  }

  /** Holds `held` (what follows the first `consumed` characters) again, cut at the deltas' ends still in it. */
  private keepHeld(held: string, ends: readonly number[], consumed: number): void {
    this.pieces = [];
    this.piecesLength = 0;
    this.loose = "";
    if (held === "") return;
    if (!this.aligned) {
      this.pieces.push(held);
      this.piecesLength = held.length;
      return;
    }
    let start = 0;
    for (const end of ends) {
      const local = end - consumed;
      if (local <= start) continue;
      this.pieces.push(held.slice(start, local));
      start = local;
    }
    this.piecesLength = start;
    this.loose = held.slice(start);
  }

  /** The cut lowered to the end of a held delta (`alignToDeltas`), never below `base`. */
  private static alignedCut(ends: readonly number[], cut: number, base: number): number {
    let aligned = base;
    for (const end of ends) {
      if (base + end > cut) break;
      aligned = base + end;
    }
    return aligned;
  }

  /** The held text and the delta joined and scanned with the armed detectors' patterns. */
  private releaseScanned(added: number, final: boolean): ScanStep {
    const ends = this.aligned ? this.endsOfPieces() : [];
    let text = (this.pieces.length === 1 ? (this.pieces[0] as string) : this.pieces.join("")) + this.loose;
    let skipped = 0;
    if (this.closing) {
      const close = this.closing;
      close.lastIndex = 0;
      const closed = close.exec(text);
      if (!closed) {
        const tail = final ? "" : text.slice(-CLOSE_TAIL_CHARS);
        this.keepHeld(tail, [], 0);
        this.quietTail = 0;
        return { text: "", consumed: text.length - tail.length, verbatim: false };
      }
      skipped = closed.index + closed[0].length;
      text = text.slice(skipped);
      this.closing = undefined;
      this.context = "";
      ends.length = 0;
    }
    const context = this.context.length > CONTEXT_CHARS ? this.context.slice(-CONTEXT_CHARS) : this.context;
    const base = context.length;
    const buffer = context + text;
    this.arm(buffer, added);
    let spans = this.armed.size === 0 && this.anyHint ? [] : spansOf(this.rules, buffer, this.isScanned);
    if (spans.length > 0 && base > 0) spans = spans.filter((span) => span.start >= base);
    for (const span of spans)
      if (span.rule.action === "block") {
        this.blocked = hitOf(span, "response");
        this.hits.push(this.blocked);
        this.keepHeld("", [], 0);
        return { text: "", block: this.blocked, consumed: 0, verbatim: false };
      }
    let cut = final ? buffer.length : Math.max(base, buffer.length - this.window);
    if (this.aligned && !final) cut = StreamScanner.alignedCut(ends, cut, base);
    let out = "";
    let position = base;
    for (const span of resolveSpans(spans)) {
      if (span.start >= cut) break;
      const running = !final && span.end === buffer.length;
      if (running && span.open && span.rule.action === "mask") {
        this.hits.push(hitOf(span, "response"));
        this.closing = span.rule.detectors.find((detector) => detector.entity === span.entity)?.region?.close;
        const tail = buffer.slice(-CLOSE_TAIL_CHARS);
        this.keepHeld(tail, [], 0);
        this.quietTail = 0;
        const consumed = skipped + text.length - tail.length;
        return { text: out + buffer.slice(position, span.start) + span.mask, consumed, verbatim: false };
      }
      if (running && buffer.length - span.start <= this.window * 8) {
        cut = span.start;
        break;
      }
      this.hits.push(hitOf(span, "response"));
      if (span.rule.action === "mask") {
        out += buffer.slice(position, span.start) + span.mask;
        position = span.end;
      }
      cut = Math.max(cut, span.end);
    }
    const verbatim = position === base && skipped === 0;
    out = verbatim ? buffer.slice(base, cut) : out + buffer.slice(position, cut);
    this.keepHeld(buffer.slice(cut), ends, cut - base);
    this.context = buffer.slice(Math.max(0, cut - CONTEXT_CHARS), cut);
    this.quietTail = this.hintChars ? quietTailOf(this.hintChars, buffer) : 0;
    return { text: out, consumed: skipped + cut - base, verbatim };
  }
}

/** How many characters at the end of `text` hold no hint character, counted up to the overlap (all of a shorter text). */
function quietTailOf(hintChars: HintChars, text: string): number {
  const last = lastHintCharIn(hintChars, text, Math.max(0, text.length - HINT_OVERLAP_CHARS));
  return last === -1 ? HINT_OVERLAP_CHARS : text.length - 1 - last;
}
