/**
 * Runs one generation plan through both streaming paths of a `google` provider — the AI SDK's
 * (`streamWithModel`) and Conduit's own client (`streamGemini`) — each on a provider of its
 * own, and returns the parts of each in a comparable form.
 */
import type { KeySource } from "@conduit-ai/server-core";
import { type RecordedRequest, VENDOR_KEY } from "@conduit-ai/fakes";
import { streamWithModel } from "../generation/ai-sdk-model-stream.js";
import { streamGemini } from "../generation/gemini-stream-engine.js";
import type { GenerationPart, GenerationPlan } from "../generation/generation-part.js";
import { configureProvider } from "../providers/configured-provider.js";
import type { ConfiguredProvider } from "../providers/provider-registry.js";

/** A `google` provider on `baseURL`; its keys from `keys` when given (a pool's seam). */
export function googleProvider(baseURL: string, keys?: KeySource): ConfiguredProvider {
  return configureProvider(
    { name: "gemini", type: "google", settings: { apiKeys: keys ? ["cold", "warm"] : [VENDOR_KEY], baseURL } },
    { environment: {}, warn: () => {}, ...(keys ? { keySources: () => keys } : {}) },
  );
}

export function planOf(provider: ConfiguredProvider, overrides: Partial<GenerationPlan> = {}): GenerationPlan {
  return {
    text: "hi",
    history: [],
    provider,
    model: "gemini-2.5-flash",
    tools: [],
    maxSteps: 1,
    clientTools: [],
    maxRetries: 0,
    context: {},
    executeTool: async () => undefined,
    ...overrides,
  };
}

/** The parts as compared: generated tool call ids (none on the wire) and error objects by what a caller sees. */
export async function partsOf(parts: AsyncIterable<GenerationPart>, onPart?: (part: GenerationPart) => void): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const part of parts) {
    onPart?.(part);
    if (part.type === "tool-call") seen.push({ ...part, call: { ...part.call, id: part.call.id.length > 0 ? "<id>" : "" } });
    else if (part.type === "error") {
      const { message, code, statusCode, retryable, retryAfterMs } = part.error as unknown as Record<string, unknown>;
      seen.push({ type: "error", message, code, statusCode, retryable, retryAfterMs });
    } else seen.push(part);
  }
  return seen;
}

/** Runs `plan` through the AI SDK path and the lean engine (each on its own provider) and returns both sides. */
export async function bothPaths(baseURL: string, overrides: Partial<GenerationPlan> = {}, keys?: () => KeySource) {
  const sdk = googleProvider(baseURL, keys?.());
  const lean = googleProvider(baseURL, keys?.());
  const endpoint = lean.gemini;
  if (endpoint === undefined) throw new Error("the google type makes a Gemini endpoint");
  try {
    return {
      sdk: await partsOf(streamWithModel(planOf(sdk, overrides))),
      lean: await partsOf(streamGemini(planOf(lean, overrides), endpoint)),
    };
  } finally {
    endpoint.close();
  }
}

/** What the two paths sent, side by side: path, key and parsed body of each request. */
export function sentBy(requests: RecordedRequest[]) {
  return requests.map((request) => ({ path: request.path, key: request.headers["x-goog-api-key"], body: request.body }));
}
export function halves(requests: RecordedRequest[]) {
  const sent = sentBy(requests);
  return { sdk: sent.slice(0, sent.length / 2), lean: sent.slice(sent.length / 2) };
}
