import type { z } from "zod";
import { type Environment, settingFields } from "./provider-settings.js";
import { ProviderConfigError, type ProviderConfigIssue } from "./provider-config-error.js";
import { PROVIDER_TYPE_NAMES, PROVIDER_TYPES, type ProviderTypeName } from "./types/index.js";

/** One provider of the `providers` config, its settings checked and its secrets read. */
export interface ProviderEntry {
  name: string;
  type: ProviderTypeName;
  settings: Record<string, unknown>;
  /** Models listed (the first is the default) when the settings give none; default the type's known ids. */
  defaultModels?: readonly string[];
}

/** What one provider of the config holds: `type` and the settings of that type. */
export type ProviderConfig = { type: ProviderTypeName } & Record<string, unknown>;

export const PROVIDER_NAME = /^[a-z0-9][a-z0-9-]*$/;

function keyPath(base: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((joined, part) => (typeof part === "number" ? `${joined}[${part}]` : `${joined}.${String(part)}`), base);
}

function issuesOf(base: string, error: z.ZodError): ProviderConfigIssue[] {
  return error.issues.map((issue) =>
    issue.code === "unrecognized_keys"
      ? {
          path: keyPath(base, issue.path),
          message: `unknown setting${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => `"${key}"`).join(", ")}`,
        }
      : { path: keyPath(base, issue.path), message: issue.message },
  );
}

/**
 * Checks one provider's config against its type's schema; `where` is its key path
 * (`providers.gemini`). Returns the entry, or the problems found.
 */
export function checkProvider(
  name: string,
  config: unknown,
  environment: Environment,
  where = `providers.${name}`,
): ProviderEntry | ProviderConfigIssue[] {
  if (!PROVIDER_NAME.test(name))
    return [{ path: where, message: "a provider name is lowercase letters, digits and dashes ([a-z0-9][a-z0-9-]*)" }];
  if (name === "local") return [{ path: where, message: 'the name "local" is the built-in offline provider\'s' }];
  if (typeof config !== "object" || config === null || Array.isArray(config))
    return [{ path: where, message: `expected an object with a "type" (${PROVIDER_TYPE_NAMES.join(", ")})` }];
  const { type, ...settings } = config as Record<string, unknown>;
  if (typeof type !== "string" || !Object.hasOwn(PROVIDER_TYPES, type))
    return [
      {
        path: `${where}.type`,
        message: `${type === undefined ? "missing" : `unknown provider type ${JSON.stringify(type)}`} (known: ${PROVIDER_TYPE_NAMES.join(", ")})`,
      },
    ];
  const providerType = PROVIDER_TYPES[type as ProviderTypeName];
  const parsed = providerType.settings(settingFields(environment)).safeParse(settings);
  if (!parsed.success) return issuesOf(where, parsed.error);
  return { name, type: type as ProviderTypeName, settings: parsed.data };
}

/**
 * The top-level `providers` config as checked entries, in the config's order:
 * `{ "<name>": { "type": "<type>", ...settings } }`, names `[a-z0-9][a-z0-9-]*`, `"env:NAME"`
 * secrets read from `environment`. Any problem throws one `ProviderConfigError` naming every key.
 *
 * @example
 * parseProvidersConfig({ gemini: { type: "google", apiKeys: ["env:GEMINI_API_KEY"] } }, process.env);
 */
export function parseProvidersConfig(section: unknown, environment: Environment): ProviderEntry[] {
  if (section === undefined) return [];
  if (typeof section !== "object" || section === null || Array.isArray(section))
    throw new ProviderConfigError([{ path: "providers", message: 'expected an object of named providers ({"<name>": {"type": …}})' }]);
  const entries: ProviderEntry[] = [];
  const issues: ProviderConfigIssue[] = [];
  for (const [name, config] of Object.entries(section)) {
    const checked = checkProvider(name, config, environment);
    if (Array.isArray(checked)) issues.push(...checked);
    else entries.push(checked);
  }
  if (issues.length > 0) throw new ProviderConfigError(issues);
  return entries;
}
