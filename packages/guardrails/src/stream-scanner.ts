import type { Detector } from "./detectors/detector.js";
import { type GuardrailHit, type MatchRule, hitOf, resolveSpans, spansOf } from "./match-rules.js";

/** What a delta released: the text safe to send now, or the hit that ends the stream. */
export interface ScanStep {
  text: string;
  block?: GuardrailHit;
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
 * key block everything is masked until its END line.
 *
 * @example
 * const scanner = new StreamScanner(rules, 256);
 * send(scanner.push("key: AKIA").text); send(scanner.push("IOSFODNN7EXAMPLE.").text); send(scanner.flush().text);
 */
export class StreamScanner {
  readonly hits: GuardrailHit[] = [];
  private context = "";
  private held = "";
  private closing: RegExp | undefined;
  private blocked: GuardrailHit | undefined;
  /** Detectors whose hint is somewhere in the buffer; the others need only the new text tested. */
  private readonly armed = new Set<Detector>();

  constructor(
    private readonly rules: readonly MatchRule[],
    private readonly window: number,
  ) {}

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
   * prose costs a few short tests per delta instead of every pattern over the whole window.
   */
  private arm(buffer: string, added: number): void {
    const fresh = buffer.slice(Math.max(0, buffer.length - added - HINT_OVERLAP_CHARS));
    for (const rule of this.rules)
      for (const detector of rule.detectors) {
        const hint = detector.hint;
        if (!hint) continue;
        const armed = this.armed.has(detector);
        if (hint.test(armed ? buffer : fresh)) this.armed.add(detector);
        else if (armed) this.armed.delete(detector);
      }
  }

  private release(delta: string, final: boolean): ScanStep {
    if (this.blocked) return { text: "", block: this.blocked };
    let text = this.held + delta;
    if (this.closing) {
      const close = this.closing;
      close.lastIndex = 0;
      const closed = close.exec(text);
      if (!closed) {
        this.held = final ? "" : text.slice(-CLOSE_TAIL_CHARS);
        return { text: "" };
      }
      text = text.slice(closed.index + closed[0].length);
      this.closing = undefined;
      this.context = "";
    }
    const base = this.context.length;
    const buffer = this.context + text;
    this.arm(buffer, delta.length);
    const spans = spansOf(this.rules, buffer, (detector) => !detector.hint || this.armed.has(detector)).filter(
      (span) => span.start >= base,
    );
    const blocking = spans.find((span) => span.rule.action === "block");
    if (blocking) {
      this.blocked = hitOf(blocking, "response");
      this.hits.push(this.blocked);
      this.held = "";
      return { text: "", block: this.blocked };
    }
    let cut = final ? buffer.length : Math.max(base, buffer.length - this.window);
    let out = "";
    let position = base;
    for (const span of resolveSpans(spans)) {
      if (span.start >= cut) break;
      const running = !final && span.end === buffer.length;
      if (running && span.open && span.rule.action === "mask") {
        this.hits.push(hitOf(span, "response"));
        this.closing = span.rule.detectors.find((detector) => detector.entity === span.entity)?.region?.close;
        this.held = buffer.slice(-CLOSE_TAIL_CHARS);
        return { text: out + buffer.slice(position, span.start) + span.mask };
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
    out += buffer.slice(position, cut);
    this.held = buffer.slice(cut);
    this.context = buffer.slice(Math.max(0, cut - CONTEXT_CHARS), cut);
    return { text: out };
  }
}
