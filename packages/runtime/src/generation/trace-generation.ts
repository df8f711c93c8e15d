import { type TraceSpan, type Tracing, getTracing } from "@conduit-ai/server-core";
import type { GenerationPart, GenerationPlan } from "./generation-part.js";

/** The prompt as the GenAI conventions' `gen_ai.input.messages` (recorded only when content capture is on). */
function inputMessages(plan: GenerationPlan): string {
  const messages = [
    ...plan.history.map((message) => ({ role: message.role, parts: [{ type: "text", content: message.content }] })),
    { role: "user", parts: [{ type: "text", content: plan.text }] },
  ];
  return JSON.stringify(messages);
}

function startSpan(tracing: Tracing, plan: GenerationPlan): TraceSpan {
  return tracing.startSpan(`chat ${plan.model}`, {
    kind: "client",
    parent: plan.context.traceSpan,
    attributes: {
      "gen_ai.operation.name": "chat",
      // OpenTelemetry's well-known vendor name; the configured name tells two providers of one vendor apart.
      "gen_ai.provider.name": plan.provider.telemetryName,
      "conduit.provider.name": plan.provider.name,
      "gen_ai.request.model": plan.model,
      "gen_ai.request.max_tokens": plan.maxTokens,
      "gen_ai.request.temperature": plan.temperature,
      ...(tracing.captureContent
        ? {
            "gen_ai.input.messages": inputMessages(plan),
            "gen_ai.system_instructions": plan.system === undefined ? undefined : JSON.stringify([{ type: "text", content: plan.system }]),
          }
        : {}),
    },
  });
}

/**
 * One model call as a client span with the GenAI semantic conventions (`chat {model}`):
 * request model and limits when it starts, usage and finish reason when the last part is read —
 * for a stream, when the stream ends. The span is the child of `plan.context.traceSpan` (the
 * request's), and the engine gets a plan whose `context.traceSpan` is this span: its HTTP calls
 * carry the span's `traceparent` to the vendor and its tools are the span's children.
 * Content is recorded only when capture is on.
 *
 * @example
 * for await (const part of traceGeneration(plan, (traced) => streamWithAiSdk(traced))) ...
 */
export function traceGeneration(
  plan: GenerationPlan,
  run: (plan: GenerationPlan) => AsyncIterable<GenerationPart>,
): AsyncIterable<GenerationPart> {
  const tracing = getTracing();
  if (!tracing.enabled) return run(plan);
  return traced(tracing, plan, run);
}

async function* traced(
  tracing: Tracing,
  plan: GenerationPlan,
  run: (plan: GenerationPlan) => AsyncIterable<GenerationPart>,
): AsyncGenerator<GenerationPart> {
  const span = startSpan(tracing, plan);
  const spanned: GenerationPlan = { ...plan, context: { ...plan.context, traceSpan: span } };
  let answer = "";
  let finished = false;
  try {
    for await (const part of tracing.bindIterable(
      span,
      tracing.runInSpan(span, () => run(spanned)),
    )) {
      if (part.type === "text-delta" && tracing.captureContent) answer += part.delta;
      if (part.type === "finish") {
        finished = true;
        span.setAttributes({
          "gen_ai.response.model": plan.model,
          "gen_ai.response.finish_reasons": [part.reason],
          "gen_ai.usage.input_tokens": part.usage.inputTokens,
          "gen_ai.usage.output_tokens": part.usage.outputTokens,
          "gen_ai.usage.cache_read.input_tokens": part.usage.cacheReadTokens,
          "gen_ai.usage.cache_creation.input_tokens": part.usage.cacheWriteTokens,
          ...(tracing.captureContent
            ? {
                "gen_ai.output.messages": JSON.stringify([
                  { role: "assistant", parts: [{ type: "text", content: answer }], finish_reason: part.reason },
                ]),
              }
            : {}),
        });
        // The model call is over with its last part: the span ends now, not when the consumer next pulls.
        span.end();
      }
      if (part.type === "error") span.fail(part.error);
      yield part;
    }
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    // A consumer that left before the finish (client disconnect) lands here through return().
    if (!finished) span.setAttributes({ "conduit.generation.completed": false });
    span.end();
  }
}
