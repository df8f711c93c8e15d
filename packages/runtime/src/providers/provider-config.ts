import type { Environment } from "./provider-settings.js";
import { ProviderConfigError, type ProviderConfigIssue } from "./provider-config-error.js";
import { checkProvider, type ProviderEntry } from "./providers-config.js";

export type { Environment } from "./provider-settings.js";

export interface OpenAIProviderOptions {
  apiKey?: string;
  /** Any OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp); a key is optional then. */
  baseURL?: string;
  models?: string[];
  embeddingModels?: string[];
}

export interface AnthropicProviderOptions {
  apiKey?: string;
  baseURL?: string;
  models?: string[];
}

/** What `OPENAI_BASE_URL` servers list when `OPENAI_MODELS` is not set (they have no known ids of their own). */
export const DEFAULT_OPENAI_MODELS = ["gpt-4o-mini", "gpt-4o", "gpt-4.1-mini"];
export const DEFAULT_OPENAI_EMBEDDING_MODELS = ["text-embedding-3-small"];

function commaList(value: string | undefined): string[] | undefined {
  const items = value
    ?.split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items && items.length > 0 ? items : undefined;
}

const defined = (settings: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));

/**
 * `openai` from `createRuntime({openai})`, else `OPENAI_API_KEY`/`OPENAI_BASE_URL`/`OPENAI_MODELS`/
 * `OPENAI_EMBEDDING_MODELS`/`OPENAI_ORGANIZATION`. With a base URL it is an `openai-compatible`
 * provider (what local servers implement, listing `gpt-4o-mini,gpt-4o,gpt-4.1-mini` unless told);
 * without one, the official OpenAI provider.
 */
function openAIShortcut(options: OpenAIProviderOptions | undefined, environment: Environment) {
  const apiKey = options?.apiKey ?? environment.OPENAI_API_KEY;
  const baseURL = options?.baseURL ?? environment.OPENAI_BASE_URL;
  if (!apiKey && !baseURL) return undefined;
  const models = options?.models ?? commaList(environment.OPENAI_MODELS);
  const embeddingModels = options?.embeddingModels ?? commaList(environment.OPENAI_EMBEDDING_MODELS);
  const apiKeys = apiKey ? [apiKey] : undefined;
  if (baseURL)
    return {
      config: defined({
        type: "openai-compatible",
        baseURL,
        apiKeys,
        models,
        embeddingModels: embeddingModels ?? DEFAULT_OPENAI_EMBEDDING_MODELS,
      }),
      defaultModels: DEFAULT_OPENAI_MODELS,
    };
  return {
    config: defined({ type: "openai", apiKeys, models, embeddingModels, organization: environment.OPENAI_ORGANIZATION || undefined }),
  };
}

function anthropicShortcut(options: AnthropicProviderOptions | undefined, environment: Environment) {
  const apiKey = options?.apiKey ?? environment.ANTHROPIC_API_KEY;
  if (!apiKey) return undefined;
  const baseURL = options?.baseURL ?? environment.ANTHROPIC_BASE_URL;
  return {
    config: defined({ type: "anthropic", apiKeys: [apiKey], baseURL, models: options?.models ?? commaList(environment.ANTHROPIC_MODELS) }),
  };
}

/** `<NAME>_API_KEY` alone: a provider of that type named after it. */
function keyShortcut(type: string, variable: string, environment: Environment) {
  const key = environment[variable];
  return key ? { config: { type, apiKeys: [key] } } : undefined;
}

/**
 * The providers the environment configures, by the same names as their types: `openai`,
 * `anthropic` (or the `openai`/`anthropic` options), `google` (`GOOGLE_GENERATIVE_AI_API_KEY`),
 * `azure-openai` (`AZURE_RESOURCE_NAME` + `AZURE_API_KEY`), `bedrock` (`AWS_REGION` + AWS keys),
 * `mistral`, `cohere`, `xai`, `groq`, `deepseek` (`<VENDOR>_API_KEY`). Names in `skip` (given by
 * the `providers` config, or turned off with `openai: false`) are left out. A malformed value
 * throws `ProviderConfigError` naming the provider.
 */
export function environmentProviders(
  options: { openai?: OpenAIProviderOptions | false; anthropic?: AnthropicProviderOptions | false },
  environment: Environment,
  skip: ReadonlySet<string>,
): ProviderEntry[] {
  const shortcuts: Record<string, { config: Record<string, unknown>; defaultModels?: readonly string[] } | undefined> = {
    openai: options.openai === false ? undefined : openAIShortcut(options.openai, environment),
    anthropic: options.anthropic === false ? undefined : anthropicShortcut(options.anthropic, environment),
    google: keyShortcut("google", "GOOGLE_GENERATIVE_AI_API_KEY", environment),
    "azure-openai":
      environment.AZURE_RESOURCE_NAME && environment.AZURE_API_KEY
        ? { config: { type: "azure-openai", resourceName: environment.AZURE_RESOURCE_NAME, apiKeys: [environment.AZURE_API_KEY] } }
        : undefined,
    // The bedrock type reads the AWS_* credentials itself when its settings give none.
    bedrock:
      environment.AWS_REGION && environment.AWS_ACCESS_KEY_ID && environment.AWS_SECRET_ACCESS_KEY
        ? { config: { type: "bedrock" } }
        : undefined,
    mistral: keyShortcut("mistral", "MISTRAL_API_KEY", environment),
    cohere: keyShortcut("cohere", "COHERE_API_KEY", environment),
    xai: keyShortcut("xai", "XAI_API_KEY", environment),
    groq: keyShortcut("groq", "GROQ_API_KEY", environment),
    deepseek: keyShortcut("deepseek", "DEEPSEEK_API_KEY", environment),
  };
  const entries: ProviderEntry[] = [];
  const issues: ProviderConfigIssue[] = [];
  for (const [name, shortcut] of Object.entries(shortcuts)) {
    if (shortcut === undefined || skip.has(name)) continue;
    const checked = checkProvider(name, shortcut.config, environment);
    if (Array.isArray(checked)) issues.push(...checked.map((issue) => ({ ...issue, message: `${issue.message} (from the environment)` })));
    else entries.push(shortcut.defaultModels ? { ...checked, defaultModels: shortcut.defaultModels } : checked);
  }
  if (issues.length > 0) throw new ProviderConfigError(issues);
  return entries;
}
