import { anthropic } from "./anthropic.js";
import { azureOpenai } from "./azure-openai.js";
import { bedrock } from "./bedrock.js";
import { cohere } from "./cohere.js";
import { deepseek } from "./deepseek.js";
import { google } from "./google.js";
import { groq } from "./groq.js";
import { mistral } from "./mistral.js";
import { openai } from "./openai.js";
import { openaiCompatible } from "./openai-compatible.js";
import { vertex } from "./vertex.js";
import { xai } from "./xai.js";

/**
 * Every provider type the `providers` config accepts, by its `type` value. A new vendor is one
 * file beside this one and one entry here.
 */
export const PROVIDER_TYPES = {
  openai,
  anthropic,
  "openai-compatible": openaiCompatible,
  "azure-openai": azureOpenai,
  google,
  vertex,
  bedrock,
  mistral,
  cohere,
  xai,
  groq,
  deepseek,
} as const;

export type ProviderTypeName = keyof typeof PROVIDER_TYPES;

export const PROVIDER_TYPE_NAMES = Object.keys(PROVIDER_TYPES) as ProviderTypeName[];
