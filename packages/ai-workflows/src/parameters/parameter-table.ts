import type { ModelPrice, ProviderInfo } from "@conduit-ai/server-core";

export type Style = "creative" | "balanced" | "precise" | "factual";
export type Goal = "speed" | "quality" | "cost" | "tokens";

/** Sampling by style: randomness for creative work, determinism for facts. */
export const STYLE_SAMPLING: Record<Style, { temperature: number; topP: number; why: string }> = {
  creative: { temperature: 0.9, topP: 0.95, why: "creative: high temperature and wide nucleus for varied wording" },
  balanced: { temperature: 0.7, topP: 0.9, why: "balanced: moderate temperature, the usual default of chat models" },
  precise: { temperature: 0.3, topP: 0.8, why: "precise: low temperature keeps answers consistent between calls" },
  factual: { temperature: 0.1, topP: 0.7, why: "factual: near-greedy decoding to avoid inventing details" },
};

/** Output budget by goal, as a multiple of the answer length the prompt implies. */
export const GOAL_TOKENS: Record<Goal, { factor: number; why: string }> = {
  speed: { factor: 1, why: "speed: output budget at the expected answer length (generation time grows with output tokens)" },
  quality: { factor: 2, why: "quality: twice the expected answer length so answers are never cut off" },
  cost: { factor: 1.2, why: "cost: output budget just above the expected answer length (output tokens cost most)" },
  tokens: { factor: 1, why: "tokens: output budget exactly at the expected answer length" },
};

const SMALL = /(mini|nano|haiku|flash|small|lite|tiny|\b[1-9]b\b|8b)/i;
const LARGE = /(opus|sonnet|large|pro|ultra|70b|405b|gpt-4o(?!-mini)|gpt-4\.1(?![-.]\w*(mini|nano)))/i;
const NOT_TEXT = /(embed|ngram|whisper|tts|dall-e|image)/i;

/**
 * The model that fits a goal among the runtime's text models (not `local`): by price for cost
 * when prices are known, else by the tier its name suggests (mini/haiku/flash small; opus/sonnet/4o large).
 */
export function pickModel(
  providers: ProviderInfo[],
  goal: Goal,
  priceOf: ((provider: string, model: string) => ModelPrice | undefined) | undefined,
): { provider: string; model: string; why: string } | undefined {
  const candidates = providers
    .filter((provider) => provider.available && provider.name !== "local")
    .sort((a, b) => Number(b.default) - Number(a.default))
    .flatMap((provider) => provider.models.filter((model) => !NOT_TEXT.test(model)).map((model) => ({ provider: provider.name, model })));
  if (candidates.length === 0) return undefined;
  const blended = (candidate: { provider: string; model: string }) => {
    const price = priceOf?.(candidate.provider, candidate.model);
    return price ? price.inputPerMillionUsd + 3 * price.outputPerMillionUsd : undefined;
  };
  if (goal === "cost" || goal === "tokens") {
    const priced = candidates
      .filter((candidate) => blended(candidate) !== undefined)
      .sort((a, b) => (blended(a) as number) - (blended(b) as number));
    const cheapest = priced[0];
    if (cheapest)
      return {
        ...cheapest,
        why: `${cheapest.model}: the cheapest priced model ($${blended(cheapest)?.toFixed(2)} per million tokens at a 1:3 input:output mix)`,
      };
  }
  const wantSmall = goal !== "quality";
  const tiered = candidates.find((candidate) => (wantSmall ? SMALL : LARGE).test(candidate.model));
  const chosen = tiered ?? candidates[0];
  if (!chosen) return undefined;
  const why = tiered
    ? `${chosen.model}: a ${wantSmall ? "small, fast" : "large, more capable"} model by its name, for ${goal}`
    : `${chosen.model}: the default model (no model of the preferred tier is configured)`;
  return { ...chosen, why };
}
