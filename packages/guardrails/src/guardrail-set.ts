import type { GuardrailAction, GuardrailDirection } from "./config-schema.js";
import { type TextSlot, textSlotsOf } from "./json-texts.js";
import { type HintChars, hintCharsOf } from "./hint-chars.js";
import { type GuardrailHit, type MatchRule, hintsUnionOf, scanText } from "./match-rules.js";
import { StreamScanner, type StreamScannerOptions } from "./stream-scanner.js";
import { type GuardrailCallContext, askWebhook } from "./webhook.js";

export interface WebhookRule {
  name: string;
  action: GuardrailAction;
  url: string;
  timeoutMs: number;
  failOpen: boolean;
  headers?: Record<string, string>;
}

export interface SizeRule {
  name: string;
  action: GuardrailAction;
  maxTokens: number;
}

/** The rules of one direction, by how they run. */
export interface DirectionRules {
  match: MatchRule[];
  webhooks: WebhookRule[];
  sizes: SizeRule[];
}

/** What the rules made of a request or a whole answer: its hits, and the first block if any. */
export interface GuardrailOutcome {
  hits: GuardrailHit[];
  block?: GuardrailHit & { reason?: string };
  /** A text was masked: the body must be written anew. */
  changed: boolean;
}

/** Tokens as the size rules count them: about four characters each (no tokenizer on the hot path). */
export const estimateTokens = (characters: number) => Math.ceil(characters / 4);

/**
 * The guardrails one call runs (the defaults, plus the key's and team's, less their `!name`s),
 * compiled. `missing` holds names a key or team asked for that the config lacks: such a call is
 * blocked rather than run unguarded.
 *
 * @example
 * const outcome = await set.checkJson("request", body, { key: "key_1", model: "claude-haiku-4-5", surface: "anthropic" });
 * if (outcome.block) throw GuardrailViolation.of(outcome.block);
 */
export class GuardrailSet {
  constructor(
    readonly names: readonly string[],
    private readonly request: DirectionRules,
    private readonly response: DirectionRules,
    readonly window: number,
    readonly missing: readonly string[] = [],
    private readonly fetchImpl?: typeof fetch,
  ) {}

  private rulesOf(direction: GuardrailDirection): DirectionRules {
    return direction === "request" ? this.request : this.response;
  }

  /** True when some rule checks this direction (otherwise the caller leaves bodies and streams untouched). */
  checks(direction: GuardrailDirection): boolean {
    const rules = this.rulesOf(direction);
    return rules.match.length + rules.webhooks.length + rules.sizes.length > 0 || (direction === "request" && this.missing.length > 0);
  }

  /** Every text of a parsed JSON body, checked and masked in place. */
  checkJson(direction: GuardrailDirection, body: unknown, context: GuardrailCallContext = {}): Promise<GuardrailOutcome> {
    return this.checkTexts(direction, textSlotsOf(body), context);
  }

  /** The texts of a request or a whole answer: match rules, then size, then webhooks (on the masked texts). */
  async checkTexts(
    direction: GuardrailDirection,
    slots: readonly TextSlot[],
    context: GuardrailCallContext = {},
  ): Promise<GuardrailOutcome> {
    const rules = this.rulesOf(direction);
    const hits: GuardrailHit[] = [];
    if (direction === "request" && this.missing.length > 0) {
      const block: GuardrailHit = {
        guardrail: this.missing[0] ?? "",
        kind: "missing",
        action: "block",
        direction,
        entity: "not-configured",
      };
      return { hits: [block], block, changed: false };
    }
    let changed = false;
    const texts: string[] = [];
    for (const slot of slots) {
      if (rules.match.length === 0) {
        texts.push(slot.text);
        continue;
      }
      const scan = scanText(rules.match, slot.text, direction);
      if (scan.hits.length > 0) hits.push(...scan.hits);
      if (scan.block) return { hits, block: scan.block, changed };
      if (scan.text !== slot.text) {
        slot.replace(scan.text);
        changed = true;
      }
      texts.push(scan.text);
    }
    if (rules.sizes.length > 0) {
      const tokens = estimateTokens(texts.reduce((sum, text) => sum + text.length, 0));
      for (const rule of rules.sizes) {
        if (tokens <= rule.maxTokens) continue;
        const hit = sizeHit(rule, direction);
        hits.push(hit);
        if (hit.action === "block") return { hits, block: hit, changed };
      }
    }
    for (const rule of rules.webhooks) {
      const verdict = await askWebhook({
        url: rule.url,
        timeoutMs: rule.timeoutMs,
        direction,
        texts,
        context,
        ...(rule.headers ? { headers: rule.headers } : {}),
        ...(this.fetchImpl ? { fetch: this.fetchImpl } : {}),
      });
      if (verdict.action === "allow") continue;
      if (verdict.action === "unavailable") {
        const hit: GuardrailHit = {
          guardrail: rule.name,
          kind: "webhook",
          action: rule.failOpen ? "log" : "block",
          direction,
          entity: "webhook-unavailable",
        };
        hits.push(hit);
        if (!rule.failOpen) return { hits, block: hit, changed };
        continue;
      }
      const action = rule.action === "log" ? "log" : verdict.action === "mask" && rule.action === "mask" ? "mask" : "block";
      const hit: GuardrailHit = { guardrail: rule.name, kind: "webhook", action, direction, entity: "webhook" };
      hits.push(hit);
      if (action === "block")
        return { hits, block: verdict.action === "block" && verdict.reason ? { ...hit, reason: verdict.reason } : hit, changed };
      if (action === "mask" && verdict.action === "mask")
        verdict.texts.forEach((text, index) => {
          const slot = slots[index];
          if (slot && texts[index] !== text) {
            slot.replace(text);
            texts[index] = text;
            changed = true;
          }
        });
    }
    return { hits, changed };
  }

  /**
   * A scanner for one streamed text (one per content block), or undefined when no response rule
   * matches text: then nothing is held back.
   */
  streamScanner(options: StreamScannerOptions = {}): StreamScanner | undefined {
    return this.response.match.length > 0 ? new StreamScanner(this.response.match, this.window, options) : undefined;
  }

  /**
   * The hint characters of the response rules (what `streamScanner().hintChars` holds; undefined
   * when a rule has no hints, or none matches text): a relay reading deltas from bytes tests
   * them there, before any scanner exists.
   */
  streamHintChars(): HintChars | undefined {
    return this.response.match.length > 0 && hintsUnionOf(this.response.match) ? hintCharsOf(this.response.match) : undefined;
  }

  /** The tightest `maxOutputTokens` a streamed answer may reach, and what its rule does then. */
  outputLimit(): SizeRule | undefined {
    return this.response.sizes.reduce<SizeRule | undefined>(
      (tightest, rule) => (!tightest || rule.maxTokens < tightest.maxTokens ? rule : tightest),
      undefined,
    );
  }

  /** True when a webhook checks answers: a stream's text is kept to ask it at the end. */
  get asksAboutAnswers(): boolean {
    return this.response.webhooks.length > 0;
  }
}

/** The hit of a size rule: a size cannot be masked, so `mask` blocks. */
export function sizeHit(rule: SizeRule, direction: GuardrailDirection): GuardrailHit {
  return {
    guardrail: rule.name,
    kind: "size",
    action: rule.action === "log" ? "log" : "block",
    direction,
    entity: direction === "request" ? "max-input-tokens" : "max-output-tokens",
  };
}
