import type { GuardrailAction, GuardrailDirection } from "./config-schema.js";
import { type DetectedSpan, type Detector, detect } from "./detectors/detector.js";

/** A rule that finds spans in text (`pii`, `secrets`, `regex`), compiled once. */
export interface MatchRule {
  name: string;
  kind: "pii" | "secrets" | "regex";
  action: GuardrailAction;
  detectors: Detector[];
  /** Matches any of these test in full pass (a `secrets` rule's `allow`). */
  allow: RegExp[];
}

/** One guardrail decision, as counted and traced: never the matched text. */
export interface GuardrailHit {
  guardrail: string;
  kind: string;
  action: GuardrailAction;
  direction: GuardrailDirection;
  /** What was found (`email`, `aws-access-key`, a regex rule's name, `webhook`, `max-input-tokens`). */
  entity: string;
}

/** A span and the rule that found it. */
export interface RuleSpan extends DetectedSpan {
  rule: MatchRule;
}

const allowed = (rule: MatchRule, text: string) => rule.allow.some((pattern) => pattern.test(text));

/**
 * Every span any rule finds in `text`, overlapping ones included. `hinted` (a stream's scanner)
 * says which detectors' hints it already found, or undefined to test them here.
 */
export function spansOf(rules: readonly MatchRule[], text: string, hinted?: (detector: Detector) => boolean): RuleSpan[] {
  const spans: RuleSpan[] = [];
  for (const rule of rules)
    for (const detector of rule.detectors) {
      if (hinted && !hinted(detector)) continue;
      for (const span of detect(detector, text, hinted !== undefined)) {
        if (rule.allow.length > 0 && allowed(rule, text.slice(span.start, span.end))) continue;
        spans.push({ ...span, rule });
      }
    }
  return spans;
}

const unions = new WeakMap<readonly MatchRule[], RegExp | null>();

/**
 * One pattern testing every detector's hint at once (undefined when a detector has none, a
 * `regex` rule's): text with none of them cannot match, and costs one test instead of one per
 * detector. Case-insensitive when one hint is: a wider union only tests more texts positive.
 */
export function hintsUnionOf(rules: readonly MatchRule[]): RegExp | undefined {
  let union = unions.get(rules);
  if (union === undefined) {
    const detectors = rules.flatMap((rule) => rule.detectors);
    const hints = detectors.flatMap((detector) => (detector.hint ? [detector.hint] : []));
    const flags = hints.some((hint) => hint.flags.includes("i")) ? "i" : "";
    union = hints.length < detectors.length ? null : new RegExp(hints.map((hint) => `(?:${hint.source})`).join("|"), flags);
    unions.set(rules, union);
  }
  return union ?? undefined;
}

const ACTION_WEIGHT: Record<GuardrailAction, number> = { block: 2, mask: 1, log: 0 };

/** Spans in text order without overlaps: the earliest wins, then the longest, then the stricter action. */
export function resolveSpans(spans: RuleSpan[]): RuleSpan[] {
  if (spans.length < 2) return spans;
  const sorted = [...spans].sort(
    (a, b) => a.start - b.start || b.end - a.end || ACTION_WEIGHT[b.rule.action] - ACTION_WEIGHT[a.rule.action],
  );
  const kept: RuleSpan[] = [];
  let reached = -1;
  for (const span of sorted) {
    if (span.start < reached) continue;
    kept.push(span);
    reached = span.end;
  }
  return kept;
}

/** The hit a span counts as. */
export function hitOf(span: RuleSpan, direction: GuardrailDirection): GuardrailHit {
  return { guardrail: span.rule.name, kind: span.rule.kind, action: span.rule.action, direction, entity: span.entity };
}

/** What the match rules make of a whole text: masked, logged, or a block (the first blocking hit). */
export interface TextScan {
  text: string;
  hits: GuardrailHit[];
  block?: GuardrailHit;
}

/**
 * The match rules over one whole text (a request field, a complete answer).
 *
 * @example
 * scanText(rules, "mail me at ada@example.com", "request").text; // "mail me at [EMAIL]" (a mask rule)
 */
export function scanText(rules: readonly MatchRule[], text: string, direction: GuardrailDirection): TextScan {
  if (hintsUnionOf(rules)?.test(text) === false) return { text, hits: [] };
  const spans = spansOf(rules, text);
  if (spans.length === 0) return { text, hits: [] };
  const blocking = spans.find((span) => span.rule.action === "block");
  if (blocking) {
    const block = hitOf(blocking, direction);
    return { text, hits: [block], block };
  }
  const hits: GuardrailHit[] = [];
  let masked = "";
  let position = 0;
  for (const span of resolveSpans(spans)) {
    hits.push(hitOf(span, direction));
    if (span.rule.action !== "mask") continue;
    masked += text.slice(position, span.start) + span.mask;
    position = span.end;
  }
  return { text: position === 0 ? text : masked + text.slice(position), hits };
}
