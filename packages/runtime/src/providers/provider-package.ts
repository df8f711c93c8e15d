import { importOptionalDependency } from "@conduit-ai/server-core";
import type { ProviderContext } from "./provider-type.js";

/** `Authorization: Bearer <key>`: OpenAI and the vendors that copied its API. */
export const bearerCredential = (key: string): [string, string] => ["authorization", `Bearer ${key}`];

/**
 * A provider type's AI SDK package, imported only when a provider of that type is configured;
 * `MissingDependencyError` (with the install line) when it is not installed.
 *
 * @example
 * const { createGroq } = await loadProviderPackage("@ai-sdk/groq", () => import("@ai-sdk/groq"), context);
 */
export function loadProviderPackage<Module>(name: string, load: () => Promise<Module>, context: ProviderContext): Promise<Module> {
  return importOptionalDependency(name, load, { feature: `the provider "${context.name}" (providers.${context.name})` });
}

/** `baseURL` when the settings give one: the AI SDK packages treat a present `undefined` as unset, but their types may not. */
export function withBaseURL(baseURL: string | undefined): { baseURL?: string } {
  return baseURL === undefined ? {} : { baseURL };
}
