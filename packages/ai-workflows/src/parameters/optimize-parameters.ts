import type { Runtime } from "@conduit-ai/server-core";
import { z } from "zod";
import { expectationOf } from "../benchmark/quality-score.js";
import type { ModelStep } from "../provider/run-workflow.js";
import type { ResultMeta } from "../schemas/common.js";
import {
  OPTIMIZATION_GOALS,
  type OptimizeParametersRequest,
  type OptimizeParametersResult,
} from "../schemas/optimize-parameters-schema.js";
import { GOAL_TOKENS, type Goal, STYLE_SAMPLING, type Style, pickModel } from "./parameter-table.js";
import { clarityScore, countWords, estimateTokens, promptFindings, rewritePrompt } from "./prompt-rules.js";

type Optimization = Omit<OptimizeParametersResult, keyof ResultMeta>;

const TRADEOFFS: Record<Goal, string> = {
  speed: "Fastest answers: a small model and a tight output budget; may be less thorough.",
  quality: "Best answers: a larger model and room to finish; slower and more expensive.",
  cost: "Lowest cost: the cheapest priced model and a modest budget; quality varies by task.",
  tokens: "Fewest tokens: condensed prompt and an output budget at the expected length.",
};

function parametersFor(
  style: Style,
  goal: Goal,
  expectedWords: number,
  context: { providers: Awaited<ReturnType<Runtime["listProviders"]>>; runtime: Runtime | undefined },
) {
  const sampling = STYLE_SAMPLING[style];
  const tokens = GOAL_TOKENS[goal];
  // ≈ 1.35 tokens per English word; clamp to what chat models accept.
  const maxTokens = Math.min(8_000, Math.max(64, Math.round(expectedWords * 1.35 * tokens.factor)));
  const model = pickModel(context.providers, goal, context.runtime?.usage?.priceOf?.bind(context.runtime.usage));
  const reasoning = [sampling.why, `${tokens.why}: the prompt implies at most ${expectedWords} words → maxTokens ${maxTokens}`];
  reasoning.push(model ? model.why : "model: no provider besides the offline local one is configured, so no model is suggested");
  return {
    temperature: sampling.temperature,
    topP: sampling.topP,
    maxTokens,
    provider: model?.provider ?? null,
    model: model?.model ?? null,
    reasoning,
  };
}

/**
 * `optimize-parameters` without a model: temperature and topP from the style, maxTokens from the
 * answer length the prompt implies and the goal, a model from the runtime's providers, and a
 * prompt rewritten by measurable rules.
 */
export async function optimizeParameters(runtime: Runtime | undefined, request: OptimizeParametersRequest): Promise<Optimization> {
  const providers = runtime ? await runtime.listProviders() : [];
  const expectation = expectationOf(request.prompt);
  const expectedWords =
    request.optimizeFor === "quality" ? expectation.maxWords : Math.round((expectation.minWords + expectation.maxWords) / 2);
  const parameters = parametersFor(request.style, request.optimizeFor, expectedWords, { providers, runtime });
  const findings = promptFindings(request.prompt, request.optimizeFor, request.style);
  const optimizedPrompt = rewritePrompt(request.prompt, findings, request.optimizeFor, request.style, expectedWords);
  const after = promptFindings(optimizedPrompt, request.optimizeFor, request.style);
  const notes =
    findings.length === 0
      ? ["The prompt passes every rule; only the parameters changed."]
      : findings.map((finding) => `${finding.rule}: ${finding.message}`);
  const alternatives = request.includeAlternatives
    ? OPTIMIZATION_GOALS.filter((goal) => goal !== request.optimizeFor).map((goal) => {
        const { reasoning: _reasoning, ...alternative } = parametersFor(request.style, goal, expectedWords, { providers, runtime });
        return { optimizeFor: goal, style: request.style, parameters: alternative, tradeoff: TRADEOFFS[goal] };
      })
    : [];
  return {
    optimizedParameters: parameters,
    optimizedPrompt,
    promptAnalysis: { wordCount: countWords(request.prompt), estimatedTokens: estimateTokens(request.prompt), findings },
    expectedImprovement: {
      clarityScoreBefore: clarityScore(findings),
      clarityScoreAfter: clarityScore(after),
      promptTokensBefore: estimateTokens(request.prompt),
      promptTokensAfter: estimateTokens(optimizedPrompt),
      estimatedOutputTokens: Math.round(expectedWords * 1.35),
      notes,
    },
    alternatives,
  };
}

const modelOutputSchema = z.object({
  temperature: z.number().min(0).max(2),
  topP: z.number().min(0).max(1),
  maxTokens: z.number().int().min(1).max(32_000),
  reasoning: z.array(z.string().min(1)).min(1).max(10),
  optimizedPrompt: z.string().min(1).max(60_000),
});

/** The AI path: the model rewrites the prompt and tunes sampling; the rules' figures are recomputed on its rewrite. */
export function optimizeModelStep(
  request: OptimizeParametersRequest,
): (simulated: Optimization) => ModelStep<Optimization, z.infer<typeof modelOutputSchema>> {
  return (simulated) => ({
    instructions: `Choose sampling parameters for the prompt below (style "${request.style}", optimizing for ${request.optimizeFor}) and rewrite the prompt to be unambiguous, with an explicit output format. Keep the author's intent.`,
    prompt: `Prompt:\n"""\n${request.prompt}\n"""\nRule findings: ${JSON.stringify(simulated.promptAnalysis.findings)}\nRule-based parameters: ${JSON.stringify(simulated.optimizedParameters)}`,
    schema: modelOutputSchema,
    merge: (analysis, output) => {
      const after = promptFindings(output.optimizedPrompt, request.optimizeFor, request.style);
      return {
        ...analysis,
        optimizedParameters: {
          ...analysis.optimizedParameters,
          temperature: output.temperature,
          topP: output.topP,
          maxTokens: output.maxTokens,
          reasoning: output.reasoning,
        },
        optimizedPrompt: output.optimizedPrompt,
        expectedImprovement: {
          ...analysis.expectedImprovement,
          clarityScoreAfter: clarityScore(after),
          promptTokensAfter: estimateTokens(output.optimizedPrompt),
        },
      };
    },
  });
}
