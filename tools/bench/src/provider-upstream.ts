/**
 * A slow OpenAI-compatible provider in its own process (forked by provider-streams.ts): the shared
 * fakes' load variant (`startPacedOpenAIStreams`: one timer paces every stream, so the provider
 * stays cheap at thousands of streams) answering every streamed chat completion with `tokens`
 * tokens, one every `tokenIntervalMs`, in the Chat Completions SSE wire format. Reports its port,
 * and on request its count of open streams and of requests served, over IPC.
 *
 * Run: forked with `[tokenIntervalMs, tokens]`.
 */
import { startPacedOpenAIStreams } from "@conduit-ai/fakes";

const [intervalArgument = "1000", tokensArgument = "60"] = process.argv.slice(2);
const upstream = await startPacedOpenAIStreams({ tokenIntervalMs: Number(intervalArgument), tokens: Number(tokensArgument) });

process.send?.({ port: Number(new URL(upstream.url).port) });
process.on("message", (message: string) => {
  if (message === "status") process.send?.({ open: upstream.open, served: upstream.served });
});
process.on("disconnect", () => void upstream.close().then(() => process.exit(0)));
