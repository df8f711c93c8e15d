// LangChain JS, unchanged, against Conduit: `ChatAnthropic` on /v1/messages, `ChatOpenAI` on
// /v1/chat/completions and, with `useResponsesApi: true`, on /v1/responses. Each chat model is
// invoked, streamed, and runs one tool round by hand (bindTools → tool call → ToolMessage →
// final answer), the way a LangChain agent loop does.
import { readFileSync } from "node:fs";

const CLAUDE = "claude-sonnet-4-5";

/**
 * Registers the LangChain checks for one running Conduit; `expectCalls` wraps a client call with
 * the assertions on what went through the tap (see sdk-clients-check.mjs).
 *
 * @example
 * await langChainChecks({ sdk, rootUrl: tap.url, clientKey, workspace, expectCalls, label: "serve" });
 */
export async function langChainChecks({ sdk, rootUrl, clientKey, workspace, expectCalls, label }) {
  const readTool = sdk.langChainTool(async ({ file_path }) => readFileSync(file_path, "utf8"), {
    name: "Read",
    description: "Reads a text file",
    schema: sdk.z.object({ file_path: sdk.z.string().describe("Absolute path of the file") }),
  });
  const baseURL = `${rootUrl}/v1`;
  const models = [
    // ChatAnthropic appends /v1/messages to anthropicApiUrl itself (the Anthropic SDK's baseURL).
    {
      name: "ChatAnthropic",
      chat: new sdk.ChatAnthropic({ model: CLAUDE, apiKey: clientKey, anthropicApiUrl: rootUrl }),
      path: "/v1/messages",
    },
    {
      name: "ChatOpenAI",
      chat: new sdk.ChatOpenAI({ model: CLAUDE, apiKey: clientKey, configuration: { baseURL } }),
      path: "/v1/chat/completions",
    },
    {
      name: "ChatOpenAI useResponsesApi",
      chat: new sdk.ChatOpenAI({ model: CLAUDE, apiKey: clientKey, useResponsesApi: true, configuration: { baseURL } }),
      path: "/v1/responses",
    },
  ];
  for (const { name, chat, path } of models) {
    await expectCalls(
      `LangChain ${name} invoke through conduit ${label}`,
      { path, calls: 1 },
      async () => (await chat.invoke("Say hello.")).text,
    );
    await expectCalls(`LangChain ${name} stream through conduit ${label}`, { path, calls: 1, streamed: true }, async () => {
      let text = "";
      for await (const chunk of await chat.stream("Say hello.")) text += chunk.text;
      return text;
    });
    await expectCalls(
      `LangChain ${name} bindTools tool round through conduit ${label}`,
      { path, calls: 2, answer: workspace.answer, toolResult: true },
      async () => {
        const withTools = chat.bindTools([readTool]);
        const messages = [new sdk.HumanMessage(workspace.prompt)];
        const first = await withTools.invoke(messages);
        const call = first.tool_calls?.[0];
        if (call?.name !== "Read" || call.args.file_path !== workspace.file)
          throw new Error(`tool calls: ${JSON.stringify(first.tool_calls)}`);
        // A tool invoked with the tool call answers with the ToolMessage for it.
        messages.push(first, await readTool.invoke(call));
        return (await withTools.invoke(messages)).text;
      },
    );
  }
  await structuredOutputChecks({ sdk, models, expectCalls, label });
}

/**
 * `withStructuredOutput`: ChatAnthropic forces a tool and parses its input; ChatOpenAI sends
 * `response_format` json_schema, which Conduit turns into Claude's `output_config.format`.
 */
async function structuredOutputChecks({ sdk, models, expectCalls, label }) {
  const schema = sdk.z.object({ word: sdk.z.string() });
  const [anthropic, openai] = models;
  const expected = { path: anthropic.path, calls: 1, answer: '{"word":"pineapple-42"}' };
  await expectCalls(`LangChain ChatAnthropic withStructuredOutput (forced tool) through conduit ${label}`, expected, async () => {
    return JSON.stringify(await anthropic.chat.withStructuredOutput(schema).invoke("Give me a word."));
  });
  const viaOpenAI = { path: openai.path, calls: 1, answer: '{"word":"pineapple-42"}' };
  await expectCalls(
    `LangChain ChatOpenAI withStructuredOutput (json_schema → Claude's output_config) through conduit ${label}`,
    viaOpenAI,
    async () => {
      return JSON.stringify(await openai.chat.withStructuredOutput(schema).invoke("Give me a word."));
    },
  );
}
