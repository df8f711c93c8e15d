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

const detectorLists = new WeakMap<readonly MatchRule[], readonly Detector[]>();

/** The detectors of `rules`, listed once per rule set (a scanner is made per streamed block). */
export function detectorsOf(rules: readonly MatchRule[]): readonly Detector[] {
  let detectors = detectorLists.get(rules);
  if (!detectors) {
    detectors = rules.flatMap((rule) => rule.detectors);
    detectorLists.set(rules, detectors);
  }
  return detectors;
}

const unions = new WeakMap<readonly MatchRule[], RegExp | null>();

/**
 * One pattern testing every detector's hint at once (undefined when a detector has none, a
 * `regex` rule's): text with none of them cannot match, and costs one test instead of one per
 * detector. Case-insensitive when one hint is: a wider union only tests more texts positive.
 *
 * A hint that every one of its `hintChars` matches alone (`/\d/`, `/@/`) is the same test as "holds
 * one of them": those hints become one character class, and a hint whose `hintChars` that class
 * holds all of is left out (each of its matches holds one of them: `/\d{3}/`). The union says the
 * same of every text, with fewer alternatives tried at each character.
 */
export function hintsUnionOf(rules: readonly MatchRule[]): RegExp | undefined {
  let union = unions.get(rules);
  if (union === undefined) {
    const detectors = rules.flatMap((rule) => rule.detectors);
    const hints = detectors.flatMap((detector) => (detector.hint ? [detector.hint] : []));
    const flags = hints.some((hint) => hint.flags.includes("i")) ? "i" : "";
    union = hints.length < detectors.length ? null : new RegExp(unionSourceOf(detectors), flags);
    unions.set(rules, union);
  }
  return union ?? undefined;
}

/** A hint's `hintChars` when each alone matches it (plain ASCII ones only), else undefined. */
function charSetOf(detector: Detector): string | undefined {
  const chars = detector.hintChars;
  if (!chars || !detector.hint || [...chars].some((char) => char.charCodeAt(0) > 0x7e || char.charCodeAt(0) < 0x20)) return undefined;
  const hint = new RegExp(detector.hint.source, detector.hint.flags.replace(/[gy]/g, ""));
  return [...chars].every((char) => hint.test(char)) ? chars : undefined;
}

/** The hints' alternatives: the character-set hints as one class first, then the hints it does not cover. */
function unionSourceOf(detectors: readonly Detector[]): string {
  const set = new Set<string>();
  for (const detector of detectors) for (const char of charSetOf(detector) ?? "") set.add(char);
  const covered = (detector: Detector) =>
    set.size > 0 && detector.hintChars !== undefined && detector.hintChars !== "" && [...detector.hintChars].every((char) => set.has(char));
  const escaped = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  const sources = new Set<string>();
  if (set.size > 0) sources.add(`[${[...set].map(escaped).join("")}]`);
  for (const detector of detectors) if (!covered(detector)) sources.add((detector.hint as RegExp).source);
  return [...sources].map((source) => `(?:${source})`).join("|");
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
