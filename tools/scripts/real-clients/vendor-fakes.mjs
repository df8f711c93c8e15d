// The Gemini API and Bedrock Converse fakes of `@conduit-ai/fakes` (TypeScript, loaded through
// tsx) for the client checks, with a model that acts like the fake Anthropic agent: it calls the
// first declared tool with the workspace file, then quotes the tool's result; otherwise it greets.
import { tsImport } from "tsx/esm/api";

/** Usage both fakes report: 12 tokens in (5 of them cache reads), 8 out. */
export const VENDOR_USAGE = { input: 12, output: 8, cacheRead: 5, reasoning: 0 };

/**
 * Starts both fakes; `answer` is what they say to a prompt without tools.
 *
 * @example
 * const fakes = await startVendorFakes({ workspace, answer: "Hello from the vendor." });
 * fakes.providers; // { "google-x": {type: "google", …}, "bedrock-x": {type: "bedrock", …} }
 */
export async function startVendorFakes({ workspace, answer }) {
  const fakes = await tsImport("../../../packages/fakes/src/index.ts", import.meta.url);
  const model = (request) => {
    const { messages = [], tools = [] } = request.body;
    const result = messages.find((message) => message.role === "tool");
    if (result !== undefined) {
      const word = /pineapple-\d+/.exec(String(result.content))?.[0] ?? "(no word)";
      return { text: ["The file says ", `the secret word is ${word}.`], usage: VENDOR_USAGE };
    }
    if (tools.length > 0)
      return { toolCall: { id: "call_read_1", name: tools[0].name, input: { file_path: workspace.file } }, usage: VENDOR_USAGE };
    return { text: answer.split(/(?<= )/), usage: VENDOR_USAGE };
  };
  const gemini = await fakes.startFakeGemini({ answer: model });
  gemini.keys.add("gemini-sdk-clients-key");
  const bedrock = await fakes.startFakeBedrock({ answer: model });
  return {
    gemini,
    bedrock,
    providers: {
      "google-x": { type: "google", apiKeys: ["gemini-sdk-clients-key"], baseURL: gemini.baseURL, models: ["gemini-2.5-flash"] },
      "bedrock-x": { type: "bedrock", region: "us-east-1", baseURL: bedrock.url, ...bedrock.credentials, models: ["amazon.nova-pro-v1:0"] },
    },
    close: () => Promise.all([gemini.close(), bedrock.close()]),
  };
}
