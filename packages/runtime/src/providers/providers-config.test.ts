import type { KeyOutcome } from "@conduit-ai/server-core";
import { ConfigurationError } from "@conduit-ai/server-core";
import { startFakeGemini, startFakeOpenAI } from "@conduit-ai/fakes";
import { describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";
import { ProviderConfigError } from "./provider-config-error.js";
import { parseProvidersConfig } from "./providers-config.js";

const messageOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderConfigError);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected a ProviderConfigError");
};

describe("the providers config", () => {
  it("names the key of every mistake", () => {
    expect(messageOf(() => parseProvidersConfig({ gemini: { type: "google" } }, {}))).toBe(
      "providers.gemini.apiKeys: expected a non-empty array",
    );
    expect(messageOf(() => parseProvidersConfig({ gemini: { type: "google", apiKeys: [] } }, {}))).toBe(
      "providers.gemini.apiKeys: expected a non-empty array",
    );
    expect(messageOf(() => parseProvidersConfig({ x: { type: "gemini" } }, {}))).toMatch(
      /^providers\.x\.type: unknown provider type "gemini" \(known: openai, anthropic,/,
    );
    expect(messageOf(() => parseProvidersConfig({ Big: { type: "groq", apiKeys: ["k"] } }, {}))).toMatch(
      /^providers\.Big: a provider name is/,
    );
    expect(messageOf(() => parseProvidersConfig({ g: { type: "groq", apiKeys: ["k"], region: "x" } }, {}))).toBe(
      'providers.g: unknown setting "region"',
    );
    expect(messageOf(() => parseProvidersConfig({ g: { type: "groq", apiKeys: ["env:GROQ_KEY"] } }, {}))).toBe(
      "providers.g.apiKeys[0]: environment variable GROQ_KEY is not set",
    );
    expect(messageOf(() => parseProvidersConfig({ local: { type: "groq", apiKeys: ["k"] } }, {}))).toMatch(/^providers\.local:/);
    expect(messageOf(() => parseProvidersConfig({ a: { type: "azure-openai", apiKeys: ["k"] } }, {}))).toBe(
      "providers.a.resourceName: expected resourceName or baseURL (one of them)",
    );
    expect(messageOf(() => parseProvidersConfig({ v: { type: "vertex", project: "p", location: "us-central1" } }, {}))).toBe(
      "providers.v.credentials: expected the path of a service-account key file (or GOOGLE_APPLICATION_CREDENTIALS)",
    );
    expect(messageOf(() => parseProvidersConfig({ b: { type: "bedrock", region: "us-east-1" } }, {}))).toMatch(
      /^providers\.b\.accessKeyId: expected accessKeyId and secretAccessKey/,
    );
    expect(messageOf(() => parseProvidersConfig({ c: { type: "openai-compatible", baseURL: "ftp://x" } }, {}))).toBe(
      "providers.c.baseURL: expected an http(s) URL",
    );
    // Every mistake at once, each by its key.
    expect(messageOf(() => createRuntime({ env: {}, providers: { a: { type: "google" }, b: { type: "mistral", apiKeys: [1] } } }))).toBe(
      "providers.a.apiKeys: expected a non-empty array; providers.b.apiKeys[0]: expected a string",
    );
  });

  it("reads env: secrets, the AWS environment and GOOGLE_APPLICATION_CREDENTIALS' absence", () => {
    const [groq] = parseProvidersConfig({ fast: { type: "groq", apiKeys: ["env:GROQ_KEY", "literal"] } }, { GROQ_KEY: "from-env" });
    expect(groq?.settings).toMatchObject({ apiKeys: ["from-env", "literal"] });
    const [bedrock] = parseProvidersConfig(
      { aws: { type: "bedrock" } },
      { AWS_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "AKIA1", AWS_SECRET_ACCESS_KEY: "s", AWS_SESSION_TOKEN: "t" },
    );
    expect(bedrock?.settings).toMatchObject({ region: "eu-west-1", accessKeyId: "AKIA1", secretAccessKey: "s", sessionToken: "t" });
  });

  it("adds the environment's shortcuts under their type's name, after the configured providers and never over them", () => {
    const runtime = createRuntime({
      env: {
        GROQ_API_KEY: "g",
        MISTRAL_API_KEY: "m",
        AZURE_RESOURCE_NAME: "acme",
        AZURE_API_KEY: "a",
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "k",
        AWS_SECRET_ACCESS_KEY: "s",
      },
      providers: {
        groq: { type: "openai-compatible", baseURL: "http://127.0.0.1:1/v1", models: ["llama3"] },
        other: { type: "xai", apiKeys: ["x"] },
      },
    });
    expect(runtime.providers.names()).toEqual(["local", "groq", "other", "azure-openai", "bedrock", "mistral"]);
    expect(runtime.providers.defaultProvider).toBe("groq");
    expect(runtime.providers.resolve("text", "groq").provider.type).toBe("openai-compatible");
  });
});

describe("the key seam", () => {
  it("asks the keySources factory for each keyed provider's key per request and reports each answer", async () => {
    const upstream = await startFakeGemini();
    upstream.keys.add("pool-key-2");
    const outcomes: KeyOutcome[] = [];
    const asked: unknown[] = [];
    const runtime = createRuntime({
      env: {},
      maxRetries: 0,
      providers: { gemini: { type: "google", apiKeys: ["pool-key-1", "pool-key-2"], baseURL: `${upstream.baseURL}` } },
      keySources: (request) => {
        asked.push(request);
        return { pick: () => ({ key: request.keys[1] as string, report: (outcome) => outcomes.push(outcome) }) };
      },
    });
    try {
      expect(asked).toEqual([{ provider: "gemini", type: "google", keys: ["pool-key-1", "pool-key-2"] }]);
      await runtime.generate({ input: { text: "hi" }, model: "gemini/gemini-2.5-flash" });
      upstream.scenario = "rate-limited";
      await runtime.generate({ input: { text: "hi" }, model: "gemini/gemini-2.5-flash" }).catch(() => undefined);
      expect(upstream.requests.map((request) => request.headers["x-goog-api-key"])).toEqual(["pool-key-2", "pool-key-2"]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual([200, 429]);
      expect(outcomes[1]?.headers?.get("retry-after")).toBe("7");
    } finally {
      await runtime.close();
      await upstream.close();
    }
  });

  it("sends the first key and warns once when several keys have no pool attached; the stream client uses the seam too", async () => {
    const upstream = await startFakeOpenAI();
    const warnings: string[] = [];
    const logger = { warn: (_context: unknown, message: string) => warnings.push(message), info() {}, error() {}, debug() {} };
    const runtime = createRuntime({
      env: {},
      maxRetries: 0,
      logger: logger as never,
      providers: { vllm: { type: "openai-compatible", baseURL: upstream.baseURL, apiKeys: ["first", "second"], models: ["llama3"] } },
    });
    try {
      for await (const _ of runtime.stream({ input: { text: "hi" }, model: "vllm/llama3" }));
      expect(upstream.requests.at(-1)?.headers.authorization).toBe("Bearer first");
      expect(warnings).toEqual([expect.stringContaining("providers.vllm.apiKeys holds 2 keys")]);
    } finally {
      await runtime.close();
      await upstream.close();
    }
  });
});
