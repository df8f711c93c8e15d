import Anthropic from "@anthropic-ai/sdk";
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { createVertex } from "@ai-sdk/google-vertex";
import { GoogleGenAI } from "@google/genai";
import { Mistral } from "@mistralai/mistralai";
import { createVertexAnthropic } from "@ai-sdk/google-vertex/anthropic";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { generateText, streamText } from "ai";
import { CohereClientV2 } from "cohere-ai";
import OpenAI, { AzureOpenAI } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeAzureOpenAI, startFakeAzureOpenAI } from "./azure/fake-azure-openai.js";
import { type FakeBedrock, startFakeBedrock } from "./bedrock/fake-bedrock.js";
import { startFakeCohere } from "./cohere/fake-cohere.js";
import { startFakeGemini } from "./gemini/fake-gemini.js";
import { startFakeMistral } from "./mistral/fake-mistral.js";
import type { VendorFake } from "./vendor-fake.js";
import { writeServiceAccount } from "./vendor-wire-formats.fixture.js";
import { type FakeVertex, startFakeVertex } from "./vertex/fake-vertex.js";
import { type FakeAnthropic, startFakeAnthropic } from "./anthropic/fake-anthropic.js";
import { codexStream, type FakeCodex, startFakeCodex } from "./codex/fake-codex.js";
import { answerByModelName } from "./model-turn.js";
import { type FakeOpenAI, startFakeOpenAI } from "./openai/fake-openai.js";

// Each fake is read by its vendor's official SDK: if a fake drifts from the wire format, the SDK says so here.

describe("startFakeOpenAI, read by the openai SDK", () => {
  let fake: FakeOpenAI;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    client = new OpenAI({ apiKey: "sk-test", baseURL: fake.baseURL, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  it("answers chat completions as JSON and as a stream with a usage chunk", async () => {
    const messages = [{ role: "user" as const, content: "hi" }];
    const completion = await client.chat.completions.create({ model: "gpt-4o-mini", messages });
    expect(completion.choices[0]?.message.content).toBe("Upstream heard 1 messages");
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    const stream = await client.chat.completions.create({ model: "gpt-4o-mini", messages, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Upstream heard 1 messages");
    expect(chunks.at(-1)?.usage?.total_tokens).toBe(18);
    expect(fake.requests.at(-1)?.body).toMatchObject({ model: "gpt-4o-mini", stream: true });
  });

  it("calls the first declared tool in the first-tool scenario, and embeds", async () => {
    fake.scenario = "first-tool";
    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object" } } }];
    const completion = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }], tools });
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: "lookup" } });
    fake.scenario = "text";
    const embeddings = await client.embeddings.create({ model: "e", input: ["a", "b"] });
    expect(embeddings.data).toHaveLength(2);
  });

  it("fails as OpenAI does: 429 with retry-after, and a stream cut mid-answer", async () => {
    fake.scenario = "rate-limited";
    const refused = await client.chat.completions.create({ model: "m", messages: [] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after")).toBe("7");
    fake.scenario = "text";
    fake.answer = answerByModelName;
    const cut = await client.chat.completions.create({ model: "cut-3", messages: [], stream: true });
    await expect(
      (async () => {
        for await (const _ of cut);
      })(),
    ).rejects.toThrow();
  });
});

describe("startFakeAnthropic, read by the @anthropic-ai/sdk", () => {
  let fake: FakeAnthropic;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
    fake.credentials.add("sk-ant-test");
    client = new Anthropic({ apiKey: "sk-ant-test", baseURL: fake.url, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  it("answers messages as JSON and as a stream, with thinking and tool calls when asked", async () => {
    const request = { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };
    const message = await client.messages.create(request);
    expect(message.content).toMatchObject([{ type: "text", text: "Hello from the fake — ünïcödé ✓ 🚀" }]);
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 5 });
    const streamed = await client.messages
      .stream({
        ...request,
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools: [{ name: "weather", input_schema: { type: "object" } }],
      })
      .finalMessage();
    expect(streamed.content.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
    expect(streamed.content[1]).toMatchObject({ name: "weather", input: { city: "Paris", unit: "c" } });
    expect(fake.exchanges).toHaveLength(2);
  });

  it("refuses unknown keys with 401 and plays scripted replies first", async () => {
    const stranger = new Anthropic({ apiKey: "sk-ant-other", baseURL: fake.url, maxRetries: 0 });
    const request = { model: "claude-sonnet-4-5", max_tokens: 10, messages: [{ role: "user" as const, content: "hi" }] };
    await expect(stranger.messages.create(request)).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    fake.script("sk-ant-test", { status: 529, body: { type: "error", error: { type: "overloaded_error", message: "busy" } } });
    await expect(client.messages.create(request)).rejects.toMatchObject({ status: 529 });
    expect((await client.messages.countTokens(request)).input_tokens).toBeGreaterThan(0);
  });
});

describe("startFakeCodex", () => {
  let fake: FakeCodex;
  beforeAll(async () => {
    fake = await startFakeCodex();
  });
  afterAll(() => fake.close());

  it("streams the Responses events, and refuses limited accounts with usage_limit_reached", async () => {
    const post = (account: string) =>
      fetch(`${fake.url}/backend-api/codex/responses`, { method: "POST", headers: { "chatgpt-account-id": account }, body: "{}" });
    expect(await (await post("acct-1")).text()).toBe(codexStream());
    fake.limited.add("acct-1");
    const limited = await post("acct-1");
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { type: "usage_limit_reached" } });
    expect(fake.requests.map((request) => request.headers["chatgpt-account-id"])).toEqual(["acct-1", "acct-1"]);
  });
});

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of stream) all.push(item);
  return all;
}

describe("startFakeGemini, read by @google/genai", () => {
  let fake: VendorFake;
  let client: GoogleGenAI;
  beforeAll(async () => {
    fake = await startFakeGemini();
    fake.keys.add("gemini-key");
    client = new GoogleGenAI({ apiKey: "gemini-key", httpOptions: { baseUrl: fake.url } });
  });
  afterAll(() => fake.close());

  it("answers generateContent and streamGenerateContent?alt=sse with cached and thoughts tokens", async () => {
    const answer = await client.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" });
    expect(answer.text).toBe("Gemini heard 1 messages");
    expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 12, cachedContentTokenCount: 5, thoughtsTokenCount: 3 });
    expect(fake.requests.at(-1)).toMatchObject({ path: "/v1beta/models/gemini-2.5-flash:generateContent" });
    expect(fake.requests.at(-1)?.headers["x-goog-api-key"]).toBe("gemini-key");
    const chunks = await collect(await client.models.generateContentStream({ model: "gemini-2.5-flash", contents: "hi" }));
    expect(chunks.map((chunk) => chunk.text ?? "").join("")).toBe("Gemini heard 1 messages");
    expect(chunks.at(-1)?.usageMetadata?.totalTokenCount).toBe(20);
    expect(fake.requests.at(-1)?.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  });

  it("calls a declared function, embeds, and refuses a wrong key and a rate limit in Google's error shape", async () => {
    fake.scenario = "first-tool";
    const called = await client.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "x",
      config: { tools: [{ functionDeclarations: [{ name: "lookup", parameters: { type: "OBJECT" as never } }] }] },
    });
    expect(called.functionCalls?.[0]).toMatchObject({ name: "lookup", args: { expression: "6*7" } });
    fake.scenario = "text";
    const embedded = await client.models.embedContent({ model: "gemini-embedding-001", contents: ["a", "b"] });
    expect(embedded.embeddings).toHaveLength(2);
    const stranger = new GoogleGenAI({ apiKey: "other", httpOptions: { baseUrl: fake.url } });
    await expect(stranger.models.generateContent({ model: "gemini-2.5-flash", contents: "x" })).rejects.toMatchObject({ status: 401 });
    fake.scenario = "rate-limited";
    await expect(client.models.generateContent({ model: "gemini-2.5-flash", contents: "x" })).rejects.toMatchObject({ status: 429 });
    fake.scenario = "text";
  });
});

describe("startFakeVertex, read by @ai-sdk/google-vertex through a service account", () => {
  let fake: FakeVertex;
  let credentials: string;
  beforeAll(async () => {
    fake = await startFakeVertex();
    credentials = writeServiceAccount(fake.serviceAccount);
  });
  afterAll(() => fake.close());

  it("exchanges the signed JWT at the token endpoint, then answers Gemini and Claude models with that token", async () => {
    const key = fake.serviceAccount;
    const token = async () => {
      const { createSign } = await import("node:crypto");
      const now = Math.floor(Date.now() / 1000);
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
      const unsigned = `${part({ alg: "RS256", typ: "JWT" })}.${part({ iss: key.client_email, scope: "https://www.googleapis.com/auth/cloud-platform", aud: key.token_uri, iat: now, exp: now + 3600 })}`;
      const assertion = `${unsigned}.${createSign("RSA-SHA256").update(unsigned).sign(key.private_key).toString("base64url")}`;
      const answer = await fetch(key.token_uri, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }),
      });
      return ((await answer.json()) as { access_token: string }).access_token;
    };
    expect(credentials).toMatch(/service-account\.json$/);
    const vertex = createVertex({
      project: "conduit-test",
      location: "us-central1",
      baseURL: `${fake.url}/v1beta1/projects/conduit-test/locations/us-central1/publishers/google`,
      googleAuthOptions: { authClient: { getAccessToken: async () => ({ token: await token() }) } as never },
    });
    const answer = await generateText({ model: vertex("gemini-2.5-pro"), prompt: "hi", maxRetries: 0 });
    expect(answer.text).toBe("Vertex heard 1 messages");
    expect(answer.usage).toMatchObject({ inputTokens: 12, outputTokens: 8 });
    expect(fake.tokenRequests).toHaveLength(1);
    const streamed = streamText({ model: vertex("gemini-2.5-pro"), prompt: "hi", maxRetries: 0 });
    expect(await streamed.text).toBe("Vertex heard 1 messages");
    const claude = createVertexAnthropic({
      project: "conduit-test",
      location: "us-central1",
      baseURL: `${fake.url}/v1/projects/conduit-test/locations/us-central1/publishers/anthropic/models`,
      generateAuthToken: token,
    });
    const claudeAnswer = await generateText({ model: claude("claude-sonnet-4-5@20250929"), prompt: "hi", maxRetries: 0 });
    expect(claudeAnswer.text).toBe("Vertex heard 1 messages");
    expect(fake.requests.at(-1)?.path).toMatch(/publishers\/anthropic\/models\/claude-sonnet-4-5@20250929:rawPredict$/);
    const claudeStream = streamText({ model: claude("claude-sonnet-4-5@20250929"), prompt: "hi", maxRetries: 0 });
    expect(await claudeStream.text).toBe("Vertex heard 1 messages");
  });

  it("refuses a grant signed by another key and an API call without an issued token", async () => {
    const { generateKeyPairSync, createSign } = await import("node:crypto");
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const now = Math.floor(Date.now() / 1000);
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const unsigned = `${part({ alg: "RS256" })}.${part({ iss: fake.serviceAccount.client_email, scope: "https://www.googleapis.com/auth/cloud-platform", aud: fake.serviceAccount.token_uri, iat: now, exp: now + 60 })}`;
    const forged = `${unsigned}.${createSign("RSA-SHA256").update(unsigned).sign(privateKey).toString("base64url")}`;
    const refused = await fetch(fake.serviceAccount.token_uri, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: forged }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_grant", error_description: "invalid signature" });
    const anonymous = await fetch(`${fake.url}/v1/projects/p/locations/l/publishers/anthropic/models/claude-sonnet-4-5:rawPredict`, {
      method: "POST",
      headers: { authorization: "Bearer not-issued", "content-type": "application/json" },
      body: JSON.stringify({ anthropic_version: "vertex-2023-10-16", messages: [] }),
    });
    expect(anonymous.status).toBe(401);
  });
});

describe("startFakeBedrock, read by @aws-sdk/client-bedrock-runtime", () => {
  let fake: FakeBedrock;
  let client: BedrockRuntimeClient;
  beforeAll(async () => {
    fake = await startFakeBedrock();
    // HTTP/1.1 as the AI SDK speaks it (the client's default handler is HTTP/2, which the loopback fake does not serve).
    client = new BedrockRuntimeClient({
      region: "us-east-1",
      endpoint: fake.url,
      credentials: fake.credentials,
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
    });
  });
  afterAll(async () => {
    client.destroy();
    await fake.close();
  });

  const messages = [{ role: "user" as const, content: [{ text: "hi" }] }];

  it("answers Converse and ConverseStream (AWS event stream framing) to a SigV4-signed client", async () => {
    const answer = await client.send(new ConverseCommand({ modelId: "anthropic.claude-sonnet-4-5-20250929-v1:0", messages }));
    expect(answer.output?.message?.content?.[0]?.text).toBe("Bedrock heard 1 messages");
    expect(answer.usage).toMatchObject({ inputTokens: 12, outputTokens: 8, cacheReadInputTokens: 5 });
    expect(fake.lastSignatureProblem).toBeUndefined();
    const streamed = await client.send(new ConverseStreamCommand({ modelId: "amazon.nova-pro-v1:0", messages }));
    const events = streamed.stream ? await collect(streamed.stream) : [];
    expect(events.flatMap((event) => (event.contentBlockDelta?.delta?.text ? [event.contentBlockDelta.delta.text] : [])).join("")).toBe(
      "Bedrock heard 1 messages",
    );
    expect(events.at(-1)?.metadata?.usage).toMatchObject({ totalTokens: 20 });
  });

  it("streams a tool use, and refuses a wrong secret and a throttled call as AWS does", async () => {
    fake.scenario = "first-tool";
    const toolConfig = { tools: [{ toolSpec: { name: "lookup", inputSchema: { json: { type: "object" } } } }] };
    const streamed = await client.send(new ConverseStreamCommand({ modelId: "amazon.nova-pro-v1:0", messages, toolConfig }));
    const events = streamed.stream ? await collect(streamed.stream) : [];
    expect(events.find((event) => event.contentBlockStart)?.contentBlockStart?.start?.toolUse).toMatchObject({ name: "lookup" });
    expect(events.find((event) => event.messageStop)?.messageStop?.stopReason).toBe("tool_use");
    fake.scenario = "text";
    const forger = new BedrockRuntimeClient({
      region: "us-east-1",
      endpoint: fake.url,
      credentials: { accessKeyId: fake.credentials.accessKeyId, secretAccessKey: "wrong" },
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
    });
    await expect(forger.send(new ConverseCommand({ modelId: "amazon.nova-pro-v1:0", messages }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });
    expect(fake.lastSignatureProblem).toMatch(/signature/);
    forger.destroy();
    fake.scenario = "rate-limited";
    await expect(client.send(new ConverseCommand({ modelId: "amazon.nova-pro-v1:0", messages }))).rejects.toMatchObject({
      name: "ThrottlingException",
    });
    fake.scenario = "text";
  });
});

describe("startFakeAzureOpenAI, read by openai's AzureOpenAI", () => {
  let fake: FakeAzureOpenAI;
  beforeAll(async () => {
    fake = await startFakeAzureOpenAI();
    fake.keys.add("azure-key");
  });
  afterAll(() => fake.close());

  it("answers on the deployment path with api-key and api-version, JSON and streams", async () => {
    const client = new AzureOpenAI({ endpoint: fake.url, apiKey: "azure-key", apiVersion: "2024-10-21", deployment: "gpt-4o-prod" });
    const completion = await client.chat.completions.create({ model: "", messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]?.message.content).toBe("Azure heard 1 messages");
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(5);
    expect(fake.requests.at(-1)?.path).toBe("/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21");
    expect(fake.requests.at(-1)?.headers["api-key"]).toBe("azure-key");
    const stream = await client.chat.completions.create({ model: "", messages: [{ role: "user", content: "hi" }], stream: true });
    const chunks = await collect(stream);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Azure heard 1 messages");
    const wrong = new AzureOpenAI({
      endpoint: fake.url,
      apiKey: "other",
      apiVersion: "2024-10-21",
      deployment: "gpt-4o-prod",
      maxRetries: 0,
    });
    await expect(wrong.chat.completions.create({ model: "", messages: [] })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe("startFakeMistral, read by @mistralai/mistralai", () => {
  let fake: VendorFake;
  let client: Mistral;
  beforeAll(async () => {
    fake = await startFakeMistral();
    client = new Mistral({ apiKey: "mistral-key", serverURL: fake.url, retryConfig: { strategy: "none" } });
  });
  afterAll(() => fake.close());

  it("answers chat as JSON and as a stream whose finish chunk holds the usage, and embeds", async () => {
    const answer = await client.chat.complete({ model: "mistral-small-latest", messages: [{ role: "user", content: "hi" }] });
    expect(answer.choices?.[0]?.message?.content).toBe("Mistral heard 1 messages");
    expect(answer.usage).toMatchObject({ promptTokens: 12, completionTokens: 8 });
    const stream = await client.chat.stream({ model: "mistral-small-latest", messages: [{ role: "user", content: "hi" }] });
    const events = await collect(stream);
    expect(events.map((event) => event.data.choices[0]?.delta.content ?? "").join("")).toBe("Mistral heard 1 messages");
    expect(events.at(-1)?.data.usage?.totalTokens).toBe(20);
    const embedded = await client.embeddings.create({ model: "mistral-embed", inputs: ["a", "b"] });
    expect(embedded.data).toHaveLength(2);
    fake.scenario = "rate-limited";
    await expect(client.chat.complete({ model: "m", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({
      statusCode: 429,
    });
    fake.scenario = "text";
  });
});

describe("startFakeCohere, read by cohere-ai", () => {
  let fake: VendorFake;
  let client: CohereClientV2;
  beforeAll(async () => {
    fake = await startFakeCohere();
    client = new CohereClientV2({ token: "cohere-key", environment: fake.url });
  });
  afterAll(() => fake.close());

  it("answers chat as JSON and as a stream of typed events, calls tools, and embeds", async () => {
    const answer = await client.chat({ model: "command-a-03-2025", messages: [{ role: "user", content: "hi" }] });
    expect(answer.message.content?.[0]).toMatchObject({ type: "text", text: "Cohere heard 1 messages" });
    expect(answer.usage?.tokens).toMatchObject({ inputTokens: 12, outputTokens: 8 });
    const events = await collect(await client.chatStream({ model: "command-a-03-2025", messages: [{ role: "user", content: "hi" }] }));
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(["message-start", "content-delta", "message-end"]));
    fake.scenario = "first-tool";
    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object" } } }];
    const called = await client.chat({ model: "command-a-03-2025", messages: [{ role: "user", content: "x" }], tools });
    expect(called.message.toolCalls?.[0]?.function).toMatchObject({ name: "lookup" });
    fake.scenario = "text";
    const embedded = await client.embed({
      model: "embed-v4.0",
      texts: ["a", "b"],
      inputType: "search_document",
      embeddingTypes: ["float"],
    });
    expect(embedded.embeddings.float).toHaveLength(2);
  });
});

describe.each([
  { vendor: "xAI", usageStyle: "xai" as const },
  { vendor: "Groq", usageStyle: "groq" as const },
  { vendor: "DeepSeek", usageStyle: "deepseek" as const },
])("startFakeOpenAI with $vendor's usage, read by the openai SDK", ({ usageStyle }) => {
  it("reports cached and reasoning tokens where that vendor puts them", async () => {
    const usage = { input: 12, output: 8, cacheRead: 5, reasoning: 3 };
    const fake = await startFakeOpenAI({ usageStyle, answer: () => ({ text: ["a", "b"], usage }) });
    try {
      const client = new OpenAI({ apiKey: "k", baseURL: fake.baseURL, maxRetries: 0 });
      const completion = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
      const reported = completion.usage as unknown as Record<string, unknown>;
      if (usageStyle === "deepseek") expect(reported).toMatchObject({ prompt_cache_hit_tokens: 5, prompt_cache_miss_tokens: 7 });
      else
        expect(reported).toMatchObject({ prompt_tokens_details: { cached_tokens: 5 }, completion_tokens_details: { reasoning_tokens: 3 } });
      const chunks = await collect(await client.chat.completions.create({ model: "m", messages: [], stream: true }));
      const last = chunks.at(-1) as unknown as { usage?: unknown; x_groq?: { usage?: unknown } };
      expect(usageStyle === "groq" ? last.x_groq?.usage : last.usage).toMatchObject({ total_tokens: 20 });
    } finally {
      await fake.close();
    }
  });
});
