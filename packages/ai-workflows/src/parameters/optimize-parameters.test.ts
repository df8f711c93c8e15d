import type { ProviderInfo, Runtime } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { optimizeParametersRequestSchema } from "../schemas/optimize-parameters-schema.js";
import { optimizeParameters } from "./optimize-parameters.js";
import { clarityScore, promptFindings } from "./prompt-rules.js";

const providers: ProviderInfo[] = [
  { name: "local", models: ["echo"], available: true, default: false },
  { name: "openai", models: ["gpt-4o", "gpt-4o-mini", "text-embedding-3-small"], available: true, default: true },
];
const prices: Record<string, { inputPerMillionUsd: number; outputPerMillionUsd: number }> = {
  "gpt-4o": { inputPerMillionUsd: 2.5, outputPerMillionUsd: 10 },
  "gpt-4o-mini": { inputPerMillionUsd: 0.15, outputPerMillionUsd: 0.6 },
};
const runtime = {
  listProviders: async () => providers,
  usage: { query: async () => ({}), priceOf: (_provider: string, model: string) => prices[model] },
} as unknown as Runtime;
const optimize = (body: Record<string, unknown>) =>
  optimizeParameters(runtime, optimizeParametersRequestSchema.parse({ style: "balanced", optimizeFor: "quality", ...body }));

describe("optimize-parameters", () => {
  it("derives sampling from the style and the budget and model from the goal", async () => {
    const factual = await optimize({
      prompt: "In one sentence, what is the boiling point of water at sea level?",
      style: "factual",
      optimizeFor: "cost",
    });
    expect(factual.optimizedParameters).toMatchObject({ temperature: 0.1, topP: 0.7, provider: "openai", model: "gpt-4o-mini" });
    expect(factual.optimizedParameters.maxTokens).toBe(Math.max(64, Math.round(Math.round((4 + 45) / 2) * 1.35 * 1.2)));
    const creative = await optimize({
      prompt: "Write a detailed short story about a lighthouse keeper, as markdown paragraphs.",
      style: "creative",
      optimizeFor: "quality",
      includeAlternatives: true,
    });
    expect(creative.optimizedParameters).toMatchObject({ temperature: 0.9, topP: 0.95, model: "gpt-4o" });
    expect(creative.optimizedParameters.maxTokens).toBeGreaterThan(factual.optimizedParameters.maxTokens);
    expect(creative.alternatives.map((alternative) => alternative.optimizeFor)).toEqual(["speed", "cost", "tokens"]);
  });

  it("rewrites the prompt by measurable rules and scores clarity before and after", async () => {
    const result = await optimize({
      prompt: "Please tell me some stuff about Rust etc. Why is it fast? Is it safe???",
      style: "precise",
      optimizeFor: "tokens",
    });
    const rules = result.promptAnalysis.findings.map((finding) => finding.rule);
    expect(rules).toEqual(
      expect.arrayContaining(["missing-output-format", "ambiguous-word", "multiple-questions", "no-length-limit", "filler", "noise"]),
    );
    expect(result.optimizedPrompt).not.toMatch(/Please/);
    expect(result.optimizedPrompt).toMatch(/^1\. /);
    expect(result.optimizedPrompt).toContain("Answer as a numbered list of concrete points.");
    expect(result.expectedImprovement.clarityScoreAfter).toBeGreaterThan(result.expectedImprovement.clarityScoreBefore);
    expect(result.expectedImprovement.clarityScoreBefore).toBe(
      clarityScore(promptFindings("Please tell me some stuff about Rust etc. Why is it fast? Is it safe???", "tokens", "precise")),
    );
  });

  it("suggests no model when only the local provider exists", async () => {
    const local = { listProviders: async () => [providers[0]] } as unknown as Runtime;
    const result = await optimizeParameters(
      local,
      optimizeParametersRequestSchema.parse({ prompt: "Summarize this text briefly.", style: "balanced", optimizeFor: "quality" }),
    );
    expect(result.optimizedParameters).toMatchObject({ provider: null, model: null });
  });
});
