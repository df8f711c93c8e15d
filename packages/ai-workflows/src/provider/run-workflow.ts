import { type Runtime, type ServerContext, withSpan } from "@conduit-ai/server-core";
import type { z } from "zod";
import type { ResultMeta } from "../schemas/common.js";
import { selectProvider } from "./select-provider.js";
import { StructuredOutputFailure, generateStructured, isCallerRefusal } from "./structured-output.js";

/** Settings of the AI path shared by every workflow (see `AiWorkflowOptions`). */
export interface ProviderPathSettings {
  timeoutMs: number;
  maxOutputTokens: number;
  /** Prompts longer than this are not sent; the result is the simulated one with the reason. */
  maxPromptCharacters: number;
}

/**
 * What a workflow needs of its request: the abort signal, the span its own span is a child of, and
 * the caller (`user`) and request id, which its model calls carry so a gate can admit and charge
 * each one and the guardrails can put their hits on the request (its live feed entry).
 */
export type WorkflowCall = Pick<ServerContext, "abortSignal" | "traceSpan" | "user" | "requestId">;

/** How a workflow asks a model to improve on its deterministic result. */
export interface ModelStep<Result, Output> {
  instructions: string;
  prompt: string;
  schema: z.ZodType<Output>;
  merge(simulated: Result, output: Output): Result;
}

/**
 * Runs one workflow: the deterministic analysis first (always — it is both the facts the model
 * gets and the fallback), then the AI path when a provider other than `local` is chosen.
 */
export function runWorkflow<Result extends object, Output>(
  task: string,
  runtime: Runtime | undefined,
  body: { provider?: string; model?: string },
  ctx: WorkflowCall,
  settings: ProviderPathSettings,
  simulate: () => Result | Promise<Result>,
  modelStep: ((simulated: Result) => ModelStep<Result, Output> | undefined) | undefined,
): Promise<Result & ResultMeta> {
  return traceWorkflow(task, ctx, (call) => runSteps(task, runtime, body, call, settings, simulate, modelStep));
}

/**
 * A workflow as a span of its own (`workflow {name}`, a child of the request's), its model calls as
 * children (`work` gets the call with this span as `traceSpan`); it records whether the result
 * was simulated and which provider and model served, never the input.
 *
 * @example
 * return traceWorkflow("benchmark-performance", ctx, (call) => runBenchmark(runtime, body, call, settings));
 */
export function traceWorkflow<Result extends Partial<ResultMeta>>(
  name: string,
  ctx: WorkflowCall,
  work: (call: WorkflowCall) => Promise<Result>,
): Promise<Result> {
  const options = { attributes: { "conduit.workflow.name": name }, parent: ctx.traceSpan };
  return withSpan(`workflow ${name}`, options, async (span) => {
    const result = await work(
      span === undefined ? ctx : { abortSignal: ctx.abortSignal, traceSpan: span, user: ctx.user, requestId: ctx.requestId },
    );
    span?.setAttributes({
      "conduit.workflow.simulated": result.simulated,
      "gen_ai.provider.name": result.provider ?? undefined,
      "gen_ai.request.model": result.model ?? undefined,
      "conduit.workflow.fallback": result.fallbackReason !== undefined,
    });
    return result;
  });
}

async function runSteps<Result extends object, Output>(
  task: string,
  runtime: Runtime | undefined,
  body: { provider?: string; model?: string },
  ctx: WorkflowCall,
  settings: ProviderPathSettings,
  simulate: () => Result | Promise<Result>,
  modelStep: ((simulated: Result) => ModelStep<Result, Output> | undefined) | undefined,
): Promise<Result & ResultMeta> {
  const choice = await selectProvider(runtime, body);
  const simulated = await simulate();
  const asSimulated = (fallbackReason?: string): Result & ResultMeta => ({
    ...simulated,
    simulated: true,
    provider: null,
    model: null,
    ...(fallbackReason === undefined ? {} : { fallbackReason }),
  });
  if (choice === undefined || runtime === undefined || modelStep === undefined) return asSimulated();
  const step = modelStep(simulated);
  if (step === undefined) return asSimulated();
  if (step.prompt.length > settings.maxPromptCharacters) {
    return asSimulated(`input too large for the provider path (${step.prompt.length} > ${settings.maxPromptCharacters} characters)`);
  }
  try {
    const { value, model } = await generateStructured(
      runtime,
      choice,
      { task, instructions: step.instructions, prompt: step.prompt, schema: step.schema },
      {
        timeoutMs: settings.timeoutMs,
        maxOutputTokens: settings.maxOutputTokens,
        signal: ctx.abortSignal,
        traceSpan: ctx.traceSpan,
        requestId: ctx.requestId,
        ...(ctx.user ? { user: ctx.user } : {}),
      },
    );
    return { ...step.merge(simulated, value), simulated: false, provider: choice.provider, model };
  } catch (error) {
    // A gate's refusal (no budget left, a rate limit) is the caller's answer, not a provider failure to fall back from.
    if (isCallerRefusal(error)) throw error;
    if (error instanceof StructuredOutputFailure) return asSimulated(error.reason);
    return asSimulated(`provider path failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
