import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAzureOpenAI } from "./azure/fake-azure-openai.js";
import { startFakeBedrock } from "./bedrock/fake-bedrock.js";
import { startFakeCohere } from "./cohere/fake-cohere.js";
import type { FakeServer } from "./fake-server.js";
import { startFakeGemini } from "./gemini/fake-gemini.js";
import { startFakeMistral } from "./mistral/fake-mistral.js";
import { startFakeOpenAI } from "./openai/fake-openai.js";
import type { VendorFake } from "./vendor-fake.js";
import { startFakeVertex } from "./vertex/fake-vertex.js";

/** A provider's entry of the runtime's `providers` config (`{ type, ...settings }`). */
export type ProviderSettings = { type: string } & Record<string, unknown>;

/**
 * One provider type of the runtime's `providers` config against its vendor fake: how to start the
 * fake and configure the provider, and what the fake answers. Shared by the runtime's tests and
 * the conformance suite.
 */
export interface VendorCase {
  type: string;
  /** What the fake's model says it is (`"<speaker> heard N messages"`). */
  speaker: string;
  model: string;
  embeddingModel?: string;
  start(): Promise<FakeServer & { keys?: Set<string> }>;
  provider(fake: FakeServer): ProviderSettings;
  /** The usage details the vendor reports and the AI SDK package maps (input 12, output 8 always). */
  details: { cacheReadTokens?: number; reasoningTokens?: number };
  /** OpenTelemetry's `gen_ai.provider.name`. */
  telemetryName: string;
}

/** The API key every keyed fake accepts (others are refused with it echoed). */
export const VENDOR_KEY = "vendor-secret-key-0123456789";

const keyed = async <Fake extends VendorFake>(fake: Promise<Fake>): Promise<Fake> => {
  const started = await fake;
  started.keys.add(VENDOR_KEY);
  return started;
};

const usage = { input: 12, output: 8, cacheRead: 5, reasoning: 3 };

function serviceAccountFile(account: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), "conduit-vertex-")), "service-account.json");
  writeFileSync(path, JSON.stringify(account));
  return path;
}

export const PROVIDER_CASES: VendorCase[] = [
  {
    type: "google",
    speaker: "Gemini",
    model: "gemini-2.5-flash",
    embeddingModel: "gemini-embedding-001",
    start: () => keyed(startFakeGemini()),
    provider: (fake) => ({ type: "google", apiKeys: [VENDOR_KEY], baseURL: `${fake.url}/v1beta` }),
    details: { cacheReadTokens: 5, reasoningTokens: 3 },
    telemetryName: "gcp.gemini",
  },
  {
    type: "vertex",
    speaker: "Vertex",
    model: "gemini-2.5-pro",
    start: () => startFakeVertex(),
    provider: (fake) => ({
      type: "vertex",
      project: "conduit-test",
      location: "us-central1",
      credentials: serviceAccountFile((fake as Awaited<ReturnType<typeof startFakeVertex>>).serviceAccount),
      baseURL: fake.url,
    }),
    details: { cacheReadTokens: 5, reasoningTokens: 3 },
    telemetryName: "gcp.vertex_ai",
  },
  {
    type: "bedrock",
    speaker: "Bedrock",
    model: "amazon.nova-pro-v1:0",
    start: () => startFakeBedrock(),
    provider: (fake) => ({
      type: "bedrock",
      region: "us-east-1",
      baseURL: fake.url,
      ...(fake as Awaited<ReturnType<typeof startFakeBedrock>>).credentials,
    }),
    details: { cacheReadTokens: 5 },
    telemetryName: "aws.bedrock",
  },
  {
    type: "azure-openai",
    speaker: "Azure",
    model: "gpt-4o-prod",
    embeddingModel: "embeddings-prod",
    start: () => keyed(startFakeAzureOpenAI()),
    // Azure lists no models of its own (deployments are the customer's): the deployment is listed here.
    provider: (fake) => ({ type: "azure-openai", baseURL: `${fake.url}/openai`, apiKeys: [VENDOR_KEY], models: ["gpt-4o-prod"] }),
    details: { cacheReadTokens: 5, reasoningTokens: 3 },
    telemetryName: "azure.ai.openai",
  },
  {
    type: "mistral",
    speaker: "Mistral",
    model: "mistral-small-latest",
    embeddingModel: "mistral-embed",
    start: () => keyed(startFakeMistral()),
    provider: (fake) => ({ type: "mistral", apiKeys: [VENDOR_KEY], baseURL: `${fake.url}/v1` }),
    // @ai-sdk/mistral does not map reasoning tokens (yet).
    details: { cacheReadTokens: 5 },
    telemetryName: "mistral_ai",
  },
  {
    type: "cohere",
    speaker: "Cohere",
    model: "command-a-03-2025",
    embeddingModel: "embed-v4.0",
    start: () => keyed(startFakeCohere()),
    provider: (fake) => ({ type: "cohere", apiKeys: [VENDOR_KEY], baseURL: `${fake.url}/v2` }),
    // Cohere reports `cached_tokens`; @ai-sdk/cohere does not map it (yet).
    details: {},
    telemetryName: "cohere",
  },
  ...(["xai", "groq", "deepseek"] as const).map(
    (type): VendorCase => ({
      type,
      speaker: "Upstream",
      model: { xai: "grok-4", groq: "llama-3.3-70b-versatile", deepseek: "deepseek-chat" }[type],
      start: () =>
        startFakeOpenAI({
          usageStyle: type,
          answer: (request, scenario) => {
            const messages = (request.body.messages ?? []) as Array<{ role: string }>;
            const toolResult = messages.find((message) => message.role === "tool");
            if ((scenario === "tool" || scenario === "first-tool") && !toolResult)
              return { toolCall: { id: "call_1", name: "calculator", input: { expression: "6*7" } }, usage };
            const text = toolResult
              ? "The tool said 42"
              : `Upstream heard ${messages.filter((message) => message.role !== "system").length} messages`;
            return { text: text.split(/(?<= )/), usage };
          },
        }),
      provider: (fake) => ({ type, apiKeys: [VENDOR_KEY], baseURL: `${fake.url}/v1` }),
      details: { cacheReadTokens: 5, reasoningTokens: 3 },
      telemetryName: { xai: "x_ai", groq: "groq", deepseek: "deepseek" }[type],
    }),
  ),
];
