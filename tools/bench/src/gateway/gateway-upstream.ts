// Child of `bench:gateway`: the vendors every gateway in the run calls, on loopback and speaking the
// real wire formats (@conduit-ai/fakes): Anthropic Messages (JSON and SSE, `argv[2]` extra deltas per
// stream) and OpenAI Chat Completions (the pipe's chat upstream). The Anthropic fake answers the
// credential `sk-limited` with 429 + `retry-after: 0` every time (the failover scenario's first
// target), and on "hold" queues one stream that sends its first events and then stalls (head-of-line).
import { answerParent } from "./child-protocol.js";
import { startFakeAnthropic, startFakeOpenAI, textStreamEvents } from "@conduit-ai/fakes";

const anthropic = await startFakeAnthropic();
anthropic.credentials.add("sk-bench");
anthropic.extraDeltas = Number(process.argv[2] ?? "0");
const openai = await startFakeOpenAI();
const limited = {
  status: 429,
  headers: { "retry-after": "0" },
  body: { type: "error", error: { type: "rate_limit_error", message: "Number of requests has exceeded your rate limit" } },
};
// The fakes keep every request for tests' assertions; a bench needs the traffic only. The limited
// credential's script is topped up so it never runs dry.
setInterval(() => {
  anthropic.requests.length = 0;
  anthropic.exchanges.length = 0;
  openai.requests.length = 0;
  anthropic.script("sk-limited", ...Array(5_000).fill(limited));
}, 500).unref();
anthropic.script("sk-limited", ...Array(20_000).fill(limited));
process.on("message", (question: string) => {
  if (question === "hold") anthropic.reply({ events: textStreamEvents(["stalled"]).slice(0, 3), hold: true });
});
answerParent({ anthropic: Number(new URL(anthropic.url).port), openai: Number(new URL(openai.url).port) }, async () => {
  await Promise.all([anthropic.close(), openai.close()]);
});
