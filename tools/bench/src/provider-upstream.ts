/**
 * A slow OpenAI-compatible provider in its own process (forked by provider-streams.ts): the shared
 * fake (`@conduit-ai/fakes`) answering every chat completion with `tokens` tokens, one every
 * `tokenIntervalMs`, in the Chat Completions SSE wire format (role chunk and first token at once,
 * then `finish_reason: "stop"`, a usage chunk and `[DONE]`). Reports its port, and on request its
 * count of open streams and of requests served, over IPC.
 *
 * Run: forked with `[tokenIntervalMs, tokens]`.
 */
import { startFakeOpenAI } from "@conduit-ai/fakes";

const [intervalArgument = "1000", tokensArgument = "60"] = process.argv.slice(2);
const text = Array.from({ length: Number(tokensArgument) }, () => "token ");
const fake = await startFakeOpenAI({
  answer: () => ({ text, pieceDelayMs: Number(intervalArgument), usage: { input: 5, output: text.length } }),
});

let served = 0;
// The fake keeps every request for tests' assertions; a bench only needs the traffic (and the count).
setInterval(() => {
  served += fake.requests.length;
  fake.requests.length = 0;
}, 500).unref();

process.send?.({ port: Number(new URL(fake.url).port) });
process.on("message", (message: string) => {
  if (message === "status") process.send?.({ open: fake.open, served: served + fake.requests.length });
});
process.on("disconnect", () => void fake.close().then(() => process.exit(0)));
