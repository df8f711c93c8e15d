// The Vercel AI SDK 6, unchanged, against Conduit: `@ai-sdk/anthropic` on /v1/messages,
// `@ai-sdk/openai` on /v1/responses (its default model call) and /v1/chat/completions (`.chat`),
// `@ai-sdk/openai-compatible` on /v1/chat/completions, `embed`/`embedMany` on /v1/embeddings.
// Each model gets a plain answer and a tool round (the fake Anthropic agent answers the prompt
// with a `Read` tool_use, then quotes the tool's result), generated and streamed.
import { readFileSync } from "node:fs";

const CLAUDE = "claude-sonnet-4-5";

/** The `Read` tool the fake agent calls, with its input schema in zod or as plain JSON Schema. */
function readTool(sdk, schemaKind) {
  const inputSchema =
    schemaKind === "zod"
      ? sdk.z.object({ file_path: sdk.z.string().describe("Absolute path of the file") })
      : sdk.ai.jsonSchema({
          type: "object",
          properties: { file_path: { type: "string" } },
          required: ["file_path"],
          additionalProperties: false,
        });
  return sdk.ai.tool({ description: "Reads a text file", inputSchema, execute: async ({ file_path }) => readFileSync(file_path, "utf8") });
}

async function textOfStream(result) {
  let text = "";
  for await (const delta of result.textStream) text += delta;
  return text;
}

/**
 * Registers the AI SDK checks for one running Conduit; `expectCalls` wraps a client call with the
 * assertions on what went through the tap (see sdk-clients-check.mjs).
 *
 * @example
 * await aiSdkChecks({ sdk, baseUrl: `${tap.url}/v1`, clientKey, workspace, expectCalls, label: "proxy" });
 */
export async function aiSdkChecks({ sdk, baseUrl, clientKey, workspace, expectCalls, label }) {
  const { ai } = sdk;
  const anthropic = sdk.createAnthropic({ baseURL: baseUrl, apiKey: clientKey });
  const openai = sdk.createOpenAI({ baseURL: baseUrl, apiKey: clientKey });
  const compatible = sdk.createOpenAICompatible({ name: "conduit", baseURL: baseUrl, apiKey: clientKey });
  const models = [
    { name: "@ai-sdk/anthropic createAnthropic", model: anthropic(CLAUDE), path: "/v1/messages", schema: "zod" },
    { name: "@ai-sdk/openai createOpenAI (default: Responses)", model: openai(CLAUDE), path: "/v1/responses", schema: "zod" },
    { name: "@ai-sdk/openai createOpenAI .chat", model: openai.chat(CLAUDE), path: "/v1/chat/completions", schema: "json" },
    { name: "@ai-sdk/openai-compatible", model: compatible(CLAUDE), path: "/v1/chat/completions", schema: "json" },
  ];
  for (const { name, model, path, schema } of models) {
    await expectCalls(`AI SDK ${name} generateText through conduit ${label}`, { path, calls: 1 }, async () => {
      return (await ai.generateText({ model, prompt: "Say hello." })).text;
    });
    await expectCalls(`AI SDK ${name} streamText through conduit ${label}`, { path, calls: 1, streamed: true }, async () => {
      return textOfStream(ai.streamText({ model, prompt: "Say hello." }));
    });
    const tools = { Read: readTool(sdk, schema) };
    const toolRound = { path, calls: 2, answer: workspace.answer, toolResult: true };
    await expectCalls(`AI SDK ${name} generateText tool round (${schema} schema) through conduit ${label}`, toolRound, async () => {
      const result = await ai.generateText({ model, prompt: workspace.prompt, tools, stopWhen: ai.stepCountIs(3) });
      const called = result.steps[0]?.toolCalls?.[0];
      if (called?.toolName !== "Read" || called.input.file_path !== workspace.file)
        throw new Error(`first step's tool call: ${JSON.stringify(called)}`);
      return result.text;
    });
    await expectCalls(`AI SDK ${name} streamText tool round through conduit ${label}`, { ...toolRound, streamed: true }, async () => {
      return textOfStream(ai.streamText({ model, prompt: workspace.prompt, tools, stopWhen: ai.stepCountIs(3) }));
    });
  }
  // A runtime model (not Claude): the bare provider name `local` takes its default model.
  for (const [name, model, path] of [
    ["createOpenAI (Responses)", openai("local"), "/v1/responses"],
    ["createOpenAI .chat", openai.chat("local"), "/v1/chat/completions"],
  ]) {
    const expected = { path, calls: 1, answer: 'Local answer (provider "local", no language model): you said "Say hello.".' };
    await expectCalls(
      `AI SDK @ai-sdk/openai ${name} generateText with model "local" (runtime) through conduit ${label}`,
      expected,
      async () => {
        return (await ai.generateText({ model, prompt: "Say hello." })).text;
      },
    );
  }
  await structuredOutputChecks({ ai, anthropic, openai, z: sdk.z, expectCalls, label });
  await expectCalls(
    `AI SDK embed + embedMany with openai.embedding("local") through conduit ${label}`,
    { path: "/v1/embeddings", calls: 2, answer: null },
    async () => {
      const one = await ai.embed({ model: openai.embedding("local"), value: "hello world" });
      const many = await ai.embedMany({ model: openai.embedding("local"), values: ["hello world", "goodbye"] });
      const sizes = [one.embedding.length, ...many.embeddings.map((vector) => vector.length)];
      if (sizes.length !== 3 || sizes.some((size) => size === 0 || size !== sizes[0])) throw new Error(`vector sizes ${sizes.join(", ")}`);
      if (many.embeddings[0].some((value, index) => value !== one.embedding[index]))
        throw new Error("the same text embedded twice differs");
      return `3 vectors of ${sizes[0]} floats`;
    },
  );
}

/**
 * `Output.object`: through @ai-sdk/anthropic the schema goes to Claude as `output_config.format`;
 * through @ai-sdk/openai it becomes `text.format` (Responses) or `response_format` (chat) of type
 * json_schema, which Conduit turns into the same `output_config.format`. The JSON text comes back parsed.
 */
async function structuredOutputChecks({ ai, anthropic, openai, z, expectCalls, label }) {
  const output = ai.Output.object({ schema: z.object({ word: z.string() }) });
  for (const [name, model, path] of [
    ["@ai-sdk/anthropic", anthropic(CLAUDE), "/v1/messages"],
    ["@ai-sdk/openai createOpenAI (Responses)", openai(CLAUDE), "/v1/responses"],
    ["@ai-sdk/openai createOpenAI .chat", openai.chat(CLAUDE), "/v1/chat/completions"],
  ]) {
    const expected = { path, calls: 1, answer: '{"word":"pineapple-42"}' };
    await expectCalls(`AI SDK ${name} generateText with Output.object through conduit ${label}`, expected, async () => {
      return JSON.stringify((await ai.generateText({ model, prompt: "Give me a word.", output })).output);
    });
  }
}
