import type { ZodError } from "zod";
import { type GuardrailRule, type GuardrailsConfig, type GuardrailsConfigInput, guardrailsConfigSchema } from "./config-schema.js";
import { piiDetectorsOf } from "./detectors/pii.js";
import { secretDetectorsOf } from "./detectors/secrets.js";
import { GuardrailConfigError } from "./guardrail-errors.js";
import { type DirectionRules, GuardrailSet } from "./guardrail-set.js";
import type { GuardrailHit, MatchRule } from "./match-rules.js";

/** A full match of `pattern` (an `allow` entry exempts the whole value, not a part of it). */
const wholeMatch = (pattern: string) => new RegExp(`^(?:${pattern})$`, "u");

function matchRuleOf(rule: GuardrailRule): MatchRule | undefined {
  const base = { name: rule.name, action: rule.action };
  switch (rule.kind) {
    case "pii":
      return { ...base, kind: "pii", detectors: piiDetectorsOf(rule.entities), allow: [] };
    case "secrets":
      return { ...base, kind: "secrets", detectors: secretDetectorsOf(rule.types), allow: rule.allow.map(wholeMatch) };
    case "regex": {
      const flags = rule.caseInsensitive ? "gui" : "gu";
      const detectors = rule.patterns.map((pattern) => ({ entity: rule.name, mask: rule.mask, pattern: new RegExp(pattern, flags) }));
      return { ...base, kind: "regex", detectors, allow: [] };
    }
    default:
      return undefined;
  }
}

function directionRulesOf(rules: readonly GuardrailRule[], direction: "request" | "response"): DirectionRules {
  const applying = rules.filter((rule) => rule.on === "both" || rule.on === direction);
  const result: DirectionRules = { match: [], webhooks: [], sizes: [] };
  for (const rule of applying) {
    if (rule.kind === "webhook")
      result.webhooks.push({
        name: rule.name,
        action: rule.action,
        url: rule.url,
        timeoutMs: rule.timeoutMs,
        failOpen: rule.failOpen,
        ...(rule.headers ? { headers: rule.headers } : {}),
      });
    else if (rule.kind === "size") {
      const maxTokens = direction === "request" ? rule.maxInputTokens : rule.maxOutputTokens;
      if (maxTokens !== undefined) result.sizes.push({ name: rule.name, action: rule.action, maxTokens });
    } else {
      const match = matchRuleOf(rule);
      if (match) result.match.push(match);
    }
  }
  return result;
}

/**
 * Resolves a call's rule names: the defaults, then each list in order (a team's, then a key's),
 * `name` adding a rule and `!name` removing one.
 */
export function resolveRuleNames(defaults: readonly string[], lists: readonly (readonly string[] | undefined)[]): string[] {
  const names = new Set(defaults);
  for (const list of lists)
    for (const entry of list ?? []) {
      if (entry.startsWith("!")) names.delete(entry.slice(1));
      else names.add(entry);
    }
  return [...names];
}

export interface GuardrailsOptions {
  /** Called for every hit (metrics, traces, usage events): never with content. */
  onHit?: (hit: GuardrailHit) => void;
  /** The webhooks' fetch (tests, proxies). */
  fetch?: typeof fetch;
}

/**
 * The configured guardrails of a process. `select` gives the set one call runs; sets are
 * compiled once per distinct list and reused.
 *
 * @example
 * const guardrails = createGuardrails({ rules: [{ name: "pii", kind: "pii", action: "mask" }], default: ["pii"] });
 * const set = guardrails.select([team.guardrails, key.guardrails]);
 */
export interface Guardrails {
  readonly config: GuardrailsConfig;
  /** The rules a call runs; undefined when none apply (the caller leaves the call untouched). */
  select(lists?: readonly (readonly string[] | undefined)[]): GuardrailSet | undefined;
  /** Reports hits to `onHit` and every listener added with `onHit`. */
  record(hits: readonly GuardrailHit[]): void;
  /** Adds a listener of hits (metrics attached once the server exists). */
  onHit(listener: (hit: GuardrailHit) => void): void;
}

/** Parses a `guardrails` config; a problem throws `GuardrailConfigError` naming its key path. */
export function parseGuardrailsConfig(input: unknown, prefix = "guardrails"): GuardrailsConfig {
  const parsed = guardrailsConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw GuardrailConfigError.fromZod(parsed.error as ZodError, prefix);
  return parsed.data;
}

/**
 * Builds the guardrails from a config (parsed here when given raw): a refused pattern or an
 * unknown default throws `GuardrailConfigError` at start, never at the first call.
 */
export function createGuardrails(input: GuardrailsConfigInput | GuardrailsConfig, options: GuardrailsOptions = {}): Guardrails {
  const config = parseGuardrailsConfig(input);
  const byName = new Map(config.rules.map((rule) => [rule.name, rule]));
  const sets = new Map<string, GuardrailSet | undefined>();
  const listeners: ((hit: GuardrailHit) => void)[] = options.onHit ? [options.onHit] : [];
  /** The compiled set of `names`, cached per distinct list. */
  const setOf = (names: readonly string[]): GuardrailSet | undefined => {
    const cacheKey = names.join("\u0000");
    if (sets.has(cacheKey)) return sets.get(cacheKey);
    const rules = names.flatMap((name) => byName.get(name) ?? []);
    const missing = names.filter((name) => !byName.has(name));
    const set =
      names.length === 0
        ? undefined
        : new GuardrailSet(
            names,
            directionRulesOf(rules, "request"),
            directionRulesOf(rules, "response"),
            config.window,
            missing,
            options.fetch,
          );
    if (sets.size < 1000) sets.set(cacheKey, set);
    return set;
  };
  // Most calls name no list of their own (no key or team lists): the defaults' set, resolved once.
  const defaultSet = setOf(resolveRuleNames(config.default, []));
  return {
    config,
    select(lists = []) {
      if (lists.every((list) => list === undefined || list.length === 0)) return defaultSet;
      return setOf(resolveRuleNames(config.default, lists));
    },
    record(hits) {
      for (const hit of hits) for (const listener of listeners) listener(hit);
    },
    onHit(listener) {
      listeners.push(listener);
    },
  };
}
