import type { EmbedManyResult, EmbedResult, RuntimeCallContext } from "@conduit-ai/server-core";
import { embedMany } from "ai";
import { countTokens } from "./generation/generation-part.js";
import { embedLocally } from "./providers/local-embeddings.js";
import { mapProviderError } from "./providers/provider-error.js";
import type { ProviderRegistry } from "./providers/provider-registry.js";
import { invalidField } from "./runtime-errors.js";

export interface EmbedCallOptions {
  maxRetries: number;
  /** Fails the call with 504 `PROVIDER_TIMEOUT` when the provider has not answered by then. */
  timeoutMs: number | undefined;
  /** Told the provider, model and input tokens of every finished call (the usage ledger). */
  onUsage?: (provider: string, model: string, inputTokens: number) => void;
}

/** Largest batch one `embedMany` call accepts. */
export const MAX_EMBED_BATCH = 256;

/** Embeds texts with the resolved provider: locally (no network) or through the AI SDK. */
export async function embedTexts(
  providers: ProviderRegistry,
  texts: unknown,
  selection: { provider?: string; model?: string },
  context: RuntimeCallContext,
  call: EmbedCallOptions,
): Promise<EmbedManyResult> {
  if (!Array.isArray(texts) || texts.length === 0) throw invalidField("texts", "texts must be a non-empty array of strings");
  if (texts.length > MAX_EMBED_BATCH) throw invalidField("texts", `At most ${MAX_EMBED_BATCH} texts per call`);
  const invalid = texts.findIndex((text) => typeof text !== "string" || text.trim() === "");
  if (invalid >= 0) throw invalidField(`texts.${invalid}`, "Each text must be a non-empty string");
  const values = texts as string[];
  const { provider, model } = providers.resolve("embedding", selection.provider, selection.model);
  let embeddings: number[][];
  if (provider.embeddingModel === undefined) {
    embeddings = values.map((text) => embedLocally(text));
    call.onUsage?.(
      provider.name,
      model,
      values.reduce((sum, text) => sum + countTokens(text), 0),
    );
  } else {
    try {
      // The AI SDK has no timeout for embeddings: the caller's signal and the provider timeout, combined.
      const signals = [context.signal, call.timeoutMs === undefined ? undefined : AbortSignal.timeout(call.timeoutMs)].filter(
        (signal): signal is AbortSignal => signal !== undefined,
      );
      const result = await embedMany({
        model: await provider.embeddingModel(model),
        values,
        maxRetries: call.maxRetries,
        ...(context.traceSpan === undefined ? {} : { headers: context.traceSpan.traceHeaders() }),
        ...(signals.length > 0 ? { abortSignal: AbortSignal.any(signals) } : {}),
      });
      embeddings = result.embeddings;
      call.onUsage?.(provider.name, model, result.usage?.tokens ?? 0);
    } catch (error) {
      throw mapProviderError(error, provider.name, context.signal);
    }
  }
  return { embeddings, provider: provider.name, model, count: embeddings.length, dimension: embeddings[0]?.length ?? 0 };
}

/** `embed` is `embedMany` of one text, with the field named `text` in errors. */
export async function embedText(
  providers: ProviderRegistry,
  text: unknown,
  selection: { provider?: string; model?: string },
  context: RuntimeCallContext,
  call: EmbedCallOptions,
): Promise<EmbedResult> {
  if (typeof text !== "string" || text.trim() === "") throw invalidField("text", "text must be a non-empty string");
  const result = await embedTexts(providers, [text], selection, context, call);
  return { embedding: result.embeddings[0] ?? [], provider: result.provider, model: result.model, dimension: result.dimension };
}
