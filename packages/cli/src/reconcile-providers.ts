import type { ReconcileProvider } from "@conduit-ai/governance";
import { parseProvidersConfig } from "@conduit-ai/runtime";

/** The provider types whose vendor publishes usage and cost reports Conduit reads. */
const REPORTING_TYPES: Record<string, ReconcileProvider["vendor"]> = { anthropic: "anthropic", openai: "openai" };

/**
 * The config file's providers that can be reconciled: an `anthropic` or `openai` provider with an
 * `adminKey` (the value, or `"env:NAME"`), reporting at its `baseURL` (else the vendor's API).
 *
 * @example
 * reconcileProvidersOf({ providers: { anthropic: { type: "anthropic", apiKeys: ["env:ANTHROPIC_API_KEY"], adminKey: "env:ANTHROPIC_ADMIN_KEY" } } }, process.env);
 */
export function reconcileProvidersOf(file: { [key: string]: unknown }, env: NodeJS.ProcessEnv): ReconcileProvider[] {
  return parseProvidersConfig(file.providers, env).flatMap((entry) => {
    const vendor = REPORTING_TYPES[entry.type];
    const adminKey = entry.settings.adminKey;
    if (vendor === undefined || typeof adminKey !== "string") return [];
    const baseURL = typeof entry.settings.baseURL === "string" ? entry.settings.baseURL : undefined;
    return [{ name: entry.name, vendor, adminKey, ...(baseURL ? { baseURL } : {}) }];
  });
}
