// The Vercel AI SDK and LangChain, unchanged, on `/v1/chat/completions` with models of other
// vendors' providers: `google-x/…` (a `google` provider: the Gemini API) and `bedrock-x/…` (a
// `bedrock` provider: Converse, SigV4) in front of their loopback fakes (vendor-fakes.mjs).
// Each client makes a JSON call, a streamed call and a tool round on each model; the answer's
// text or tool call and the usage the vendor reported are checked.
import { readFileSync } from "node:fs";

/** The models, and the usage Conduit reports for the fakes' 12 in (5 cache reads) / 8 out. */
const MODELS = [
  // Gemini counts cache reads inside promptTokenCount.
  { id: "google-x/gemini-2.5-flash", vendor: "gemini", usage: { input: 12, output: 8, cacheRead: 5 } },
  // Bedrock's inputTokens leave cache reads out: the prompt is both.
  { id: "bedrock-x/amazon.nova-pro-v1:0", vendor: "bedrock", usage: { input: 17, output: 8, cacheRead: 5 } },
];
const PATH = "/v1/chat/completions";

function sameUsage(got, expected, where) {
  const same = got.input === expected.input && got.output === expected.output && got.cacheRead === expected.cacheRead;
  if (!same) throw new Error(`${where} usage ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
  return `usage in ${got.input} (${got.cacheRead} cached) out ${got.output}`;
}

const aiUsage = (usage) => ({
  input: usage.inputTokens,
  output: usage.outputTokens,
  cacheRead: usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens,
});
const langChainUsage = (message) => ({
  input: message.usage_metadata?.input_tokens,
  output: message.usage_metadata?.output_tokens,
  cacheRead: message.usage_metadata?.input_token_details?.cache_read,
});

/** The vendor fake saw the tool's result in the conversation of the round's second call. */
function sawToolResult(fake, before) {
  const seen = fake.requests.slice(before).some((request) => JSON.stringify(request.body).includes("pineapple-42"));
  if (!seen) throw new Error("the vendor fake never saw the Read tool's result");
}

/**
 * Registers the provider checks for one running Conduit (see sdk-clients-check.mjs).
 *
 * @example
 * await providerChecks({ sdk, baseUrl, clientKey, workspace, fakes, answer, expectCalls, label: "proxy" });
 */
export async function providerChecks({ sdk, baseUrl, clientKey, workspace, fakes, answer, expectCalls, label }) {
  const { ai } = sdk;
  const openai = sdk.createOpenAI({ baseURL: baseUrl, apiKey: clientKey });
  const compatible = sdk.createOpenAICompatible({ name: "conduit", baseURL: baseUrl, apiKey: clientKey, includeUsage: true });
  const aiTools = {
    Read: ai.tool({
      description: "Reads a text file",
      inputSchema: sdk.z.object({ file_path: sdk.z.string() }),
      execute: async ({ file_path }) => readFileSync(file_path, "utf8"),
    }),
  };
  const readTool = sdk.langChainTool(async ({ file_path }) => readFileSync(file_path, "utf8"), {
    name: "Read",
    description: "Reads a text file",
    schema: sdk.z.object({ file_path: sdk.z.string() }),
  });
  for (const { id, vendor, usage } of MODELS) {
    const fake = fakes[vendor];
    const clients = [
      ["AI SDK @ai-sdk/openai .chat", openai.chat(id)],
      ["AI SDK @ai-sdk/openai-compatible", compatible(id)],
    ];
    for (const [name, model] of clients) {
      await expectCalls(`${name} generateText on ${id} through conduit ${label}`, { path: PATH, calls: 1, answer }, async () => {
        const result = await ai.generateText({ model, prompt: "Say hello." });
        sameUsage(aiUsage(result.usage), usage, "generateText");
        return result.text;
      });
      await expectCalls(
        `${name} streamText on ${id} through conduit ${label}`,
        { path: PATH, calls: 1, answer, streamed: true },
        async () => {
          const result = ai.streamText({ model, prompt: "Say hello." });
          let text = "";
          for await (const delta of result.textStream) text += delta;
          sameUsage(aiUsage(await result.usage), usage, "streamText");
          return text;
        },
      );
      const round = { path: PATH, calls: 2, answer: workspace.answer };
      await expectCalls(`${name} generateText tool round on ${id} through conduit ${label}`, round, async () => {
        const before = fake.requests.length;
        const result = await ai.generateText({ model, prompt: workspace.prompt, tools: aiTools, stopWhen: ai.stepCountIs(3) });
        const called = result.steps[0]?.toolCalls?.[0];
        if (called?.toolName !== "Read" || called.input.file_path !== workspace.file)
          throw new Error(`first step's tool call: ${JSON.stringify(called)}`);
        sawToolResult(fake, before);
        sameUsage(aiUsage(result.steps[0].usage), usage, "the tool call step");
        return result.text;
      });
    }
    const chat = new sdk.ChatOpenAI({ model: id, apiKey: clientKey, configuration: { baseURL: baseUrl } });
    await expectCalls(`LangChain ChatOpenAI invoke on ${id} through conduit ${label}`, { path: PATH, calls: 1, answer }, async () => {
      const message = await chat.invoke("Say hello.");
      sameUsage(langChainUsage(message), usage, "invoke");
      return message.text;
    });
    await expectCalls(
      `LangChain ChatOpenAI stream on ${id} through conduit ${label}`,
      { path: PATH, calls: 1, answer, streamed: true },
      async () => {
        let whole;
        for await (const chunk of await chat.stream("Say hello.")) whole = whole === undefined ? chunk : whole.concat(chunk);
        sameUsage(langChainUsage(whole), usage, "stream");
        return whole.text;
      },
    );
    await expectCalls(
      `LangChain ChatOpenAI bindTools tool round on ${id} through conduit ${label}`,
      { path: PATH, calls: 2, answer: workspace.answer },
      async () => {
        const before = fake.requests.length;
        const withTools = chat.bindTools([readTool]);
        const messages = [new sdk.HumanMessage(workspace.prompt)];
        const first = await withTools.invoke(messages);
        const call = first.tool_calls?.[0];
        if (call?.name !== "Read" || call.args.file_path !== workspace.file)
          throw new Error(`tool calls: ${JSON.stringify(first.tool_calls)}`);
        sameUsage(langChainUsage(first), usage, "the tool call");
        messages.push(first, await readTool.invoke(call));
        const final = await withTools.invoke(messages);
        sawToolResult(fake, before);
        return final.text;
      },
    );
  }
}
