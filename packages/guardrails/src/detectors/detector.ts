/**
 * One kind of thing a rule finds in text: a pattern (global), an optional check of the matched
 * text (a checksum), and what replaces it when masked. A `region` detector's pattern finds where
 * a block opens (a PEM header); the span runs to `close` or, when none follows yet, to the end of
 * the text (`open`), so a stream keeps masking until the block ends.
 */
export interface Detector {
  entity: string;
  mask: string;
  pattern: RegExp;
  /** False drops the match (a Luhn-invalid card number, an IBAN with a bad checksum). */
  validate?: (match: string) => boolean;
  /** The named group that is the secret itself (the value after `aws_secret_access_key=`). */
  group?: string;
  region?: { close: RegExp };
  /**
   * A cheap test any match needs to pass (a digit, an `@`, a fixed prefix): text without it is
   * not scanned with `pattern` at all, which keeps ordinary prose almost free on streams.
   */
  hint?: RegExp;
  /**
   * Characters one of which every match of `hint` contains: a stream tests these (one character
   * class) before the hints, so prose without any costs a single short test per delta.
   */
  hintChars?: string;
}

/** Where a detector matched: `[start, end)` of the text; `open` when a region has not closed yet. */
export interface DetectedSpan {
  start: number;
  end: number;
  entity: string;
  mask: string;
  open: boolean;
}

/** Every match of `detector` in `text`, checked, as spans. */
export function detect(detector: Detector, text: string, hinted = false): DetectedSpan[] {
  const spans: DetectedSpan[] = [];
  if (!hinted && detector.hint && !detector.hint.test(text)) return spans;
  const pattern = detector.pattern;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    let start = match.index;
    let end = start + match[0].length;
    if (detector.group) {
      const range = match.indices?.groups?.[detector.group];
      if (!range) continue;
      [start, end] = range;
    }
    const found = text.slice(start, end);
    if (detector.validate && !detector.validate(found)) continue;
    let open = false;
    if (detector.region) {
      const close = detector.region.close;
      close.lastIndex = end;
      const closed = close.exec(text);
      if (closed) end = closed.index + closed[0].length;
      else {
        end = text.length;
        open = true;
      }
      pattern.lastIndex = end;
    }
    spans.push({ start, end, entity: detector.entity, mask: detector.mask, open });
  }
  return spans;
}
