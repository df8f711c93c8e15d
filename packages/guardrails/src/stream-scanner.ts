import type { Detector } from "./detectors/detector.js";
import { type GuardrailHit, type MatchRule, hintCharsOf, hintsUnionOf, hitOf, resolveSpans, spansOf } from "./match-rules.js";

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
 * @example
 * const scanner = new StreamScanner(rules, 256);
 * send(scanner.push("key: AKIA").text); send(scanner.push("IOSFODNN7EXAMPLE.").text); send(scanner.flush().text);
 */
export class StreamScanner {
  readonly hits: GuardrailHit[] = [];
  private context = "";
  private held = "";
  /** With `alignToDeltas`: where each held delta ends, in `held`'s characters. */
  private heldEnds: number[] = [];
  private closing: RegExp | undefined;
  private blocked: GuardrailHit | undefined;
  /** Detectors whose hint is somewhere in the buffer; the others need only the new text tested. */
  private readonly armed = new Set<Detector>();
  private readonly detectors: readonly Detector[];
  private readonly anyHint: RegExp | undefined;
  private readonly anyHintChar: RegExp | undefined;
  private readonly aligned: boolean;
  private readonly isScanned = (detector: Detector) => !detector.hint || this.armed.has(detector);

  constructor(
    private readonly rules: readonly MatchRule[],
    private readonly window: number,
    options: StreamScannerOptions = {},
  ) {
    this.detectors = rules.flatMap((rule) => rule.detectors);
    this.anyHint = hintsUnionOf(rules);
    this.anyHintChar = this.anyHint ? hintCharsOf(rules) : undefined;
    this.aligned = options.alignToDeltas ?? false;
  }

  /** Characters held back now (never more than the window, except a match still growing). */
  get heldLength(): number {
    return this.held.length;
  }

  push(delta: string): ScanStep {
    return this.release(delta, false);
  }

  /** The end of the text: everything held is scanned as final and released. */
  flush(): ScanStep {
    return this.release("", true);
  }

  /**
   * Which detectors' hints the buffer holds. Everything but the new delta was in the previous
   * buffer, so an unarmed detector's hint can only be in the delta (or straddle into it): ordinary
   * prose costs one test of the hints' union per delta instead of every pattern over the window.
   */
  private arm(buffer: string, added: number): void {
    const fresh = buffer.length - added - HINT_OVERLAP_CHARS <= 0 ? buffer : buffer.slice(buffer.length - added - HINT_OVERLAP_CHARS);
    if (this.armed.size === 0 && this.anyHint) {
      if (this.anyHintChar && !this.anyHintChar.test(fresh)) return;
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

  /** The cut lowered to the end of a held delta (`alignToDeltas`), never below `base`. */
  private alignedCut(cut: number, base: number): number {
    let aligned = base;
    for (const end of this.heldEnds) {
      if (base + end > cut) break;
      aligned = base + end;
    }
    return aligned;
  }

  /** Forgets the first `consumed` characters of the held deltas' ends (in place: this runs per delta). */
  private keepEnds(consumed: number): void {
    if (!this.aligned || consumed === 0) return;
    const ends = this.heldEnds;
    let first = 0;
    while (first < ends.length && (ends[first] as number) <= consumed) first++;
    if (first > 0) ends.splice(0, first);
    for (let index = 0; index < ends.length; index++) ends[index] = (ends[index] as number) - consumed;
  }

  private release(delta: string, final: boolean): ScanStep {
    if (this.blocked) return { text: "", block: this.blocked, consumed: 0, verbatim: false };
    if (this.aligned && delta.length > 0) this.heldEnds.push(this.held.length + delta.length);
    let text = this.held + delta;
    let skipped = 0;
    if (this.closing) {
      const close = this.closing;
      close.lastIndex = 0;
      const closed = close.exec(text);
      if (!closed) {
        this.held = final ? "" : text.slice(-CLOSE_TAIL_CHARS);
        this.heldEnds = [];
        return { text: "", consumed: text.length - this.held.length, verbatim: false };
      }
      skipped = closed.index + closed[0].length;
      text = text.slice(skipped);
      this.closing = undefined;
      this.context = "";
      this.heldEnds = [];
    }
    const base = this.context.length;
    const buffer = this.context + text;
    this.arm(buffer, delta.length);
    let spans = this.armed.size === 0 && this.anyHint ? [] : spansOf(this.rules, buffer, this.isScanned);
    if (spans.length > 0 && base > 0) spans = spans.filter((span) => span.start >= base);
    for (const span of spans)
      if (span.rule.action === "block") {
        this.blocked = hitOf(span, "response");
        this.hits.push(this.blocked);
        this.held = "";
        return { text: "", block: this.blocked, consumed: 0, verbatim: false };
      }
    let cut = final ? buffer.length : Math.max(base, buffer.length - this.window);
    if (this.aligned && !final) cut = this.alignedCut(cut, base);
    let out = "";
    let position = base;
    for (const span of resolveSpans(spans)) {
      if (span.start >= cut) break;
      const running = !final && span.end === buffer.length;
      if (running && span.open && span.rule.action === "mask") {
        this.hits.push(hitOf(span, "response"));
        this.closing = span.rule.detectors.find((detector) => detector.entity === span.entity)?.region?.close;
        this.held = buffer.slice(-CLOSE_TAIL_CHARS);
        this.heldEnds = [];
        const consumed = skipped + text.length - this.held.length;
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
    this.held = buffer.slice(cut);
    this.context = buffer.slice(Math.max(0, cut - CONTEXT_CHARS), cut);
    this.keepEnds(cut - base);
    return { text: out, consumed: skipped + cut - base, verbatim };
  }
}
