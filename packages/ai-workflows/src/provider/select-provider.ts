import { type ProviderInfo, type Runtime, ServerValidationError } from "@conduit-ai/server-core";

/** A provider and model for the AI path. */
export interface ProviderChoice {
  provider: string;
  /** Undefined: the provider's default model. */
  model: string | undefined;
}

const LOCAL = "local";

/**
 * The provider the AI path calls: the caller's pick, else the runtime's default provider, else
 * the first available one — never `local`, whose output is not a model's. Undefined means the
 * simulated result. An unknown provider or model is the caller's mistake: 400 naming the field.
 */
export async function selectProvider(
  runtime: Runtime | undefined,
  wanted: { provider?: string; model?: string },
): Promise<ProviderChoice | undefined> {
  if (runtime === undefined) return undefined;
  const providers = (await runtime.listProviders()).filter((provider) => provider.available);
  if (wanted.provider !== undefined) {
    const found = providers.find((provider) => provider.name === wanted.provider);
    if (!found) {
      throw new ServerValidationError("Request validation failed", [
        {
          field: "body.provider",
          message: `Unknown provider. Available: ${providers.map((provider) => provider.name).join(", ")}`,
          value: wanted.provider,
        },
      ]);
    }
    checkModel(found, wanted.model);
    return found.name === LOCAL ? undefined : { provider: found.name, model: wanted.model };
  }
  const remote = providers.filter((provider) => provider.name !== LOCAL);
  if (wanted.model !== undefined) {
    const owner = providers.find((provider) => provider.models.includes(wanted.model as string));
    if (!owner)
      checkModel({ name: "any provider", models: providers.flatMap((provider) => provider.models) } as ProviderInfo, wanted.model);
    return owner === undefined || owner.name === LOCAL ? undefined : { provider: owner.name, model: wanted.model };
  }
  const chosen = remote.find((provider) => provider.default) ?? remote[0];
  return chosen ? { provider: chosen.name, model: undefined } : undefined;
}

function checkModel(provider: Pick<ProviderInfo, "name" | "models">, model: string | undefined): void {
  if (model === undefined || provider.models.includes(model)) return;
  throw new ServerValidationError("Request validation failed", [
    { field: "body.model", message: `Model not available on ${provider.name}. Available: ${provider.models.join(", ")}`, value: model },
  ]);
}
