import type { Runtime } from "@conduit-ai/server-core";
import { TargetFailure } from "../target.js";

/**
 * The provider and model a runtime target name means: `provider/model`, a model some provider
 * lists, or a bare provider name (its default model: `local`). Anything else is a
 * `TargetFailure` naming the model (404).
 *
 * @example
 * await resolveRuntimeModel(runtime, "local"); // { provider: "local", model: "echo" }
 */
export async function resolveRuntimeModel(runtime: Runtime, model: string): Promise<{ provider: string; model: string }> {
  const providers = (await runtime.listProviders()).filter((provider) => provider.available);
  const slash = model.indexOf("/");
  if (slash > 0) {
    const named = providers.find((provider) => provider.name === model.slice(0, slash));
    if (named?.models.includes(model.slice(slash + 1))) return { provider: named.name, model: model.slice(slash + 1) };
  }
  const listing = providers.find((provider) => provider.models.includes(model));
  if (listing) return { provider: listing.name, model };
  // A bare provider name means its default model (`model: "local"`).
  const provider = providers.find((candidate) => candidate.name === model && candidate.models.length > 0);
  if (provider) return { provider: provider.name, model: provider.models[0]! };
  throw TargetFailure.unknownModel(
    model,
    providers.flatMap((candidate) => candidate.models.map((id) => `${candidate.name}/${id}`)),
  );
}
