/**
 * A slow OpenAI-compatible provider in its own process (forked by provider-streams.ts): every
 * `POST /v1/chat/completions` with `stream: true` gets the Chat Completions SSE wire format —
 * a role chunk and the first token at once, then one token per `tokenIntervalMs` (one global
 * timer for every stream, so the provider itself stays cheap at thousands of streams), then
 * `finish_reason: "stop"`, a usage chunk and `[DONE]` after `tokens` tokens.
 * Reports its port, and on request its count of open streams, over IPC.
 *
 * Run: forked with `[tokenIntervalMs, tokens]`.
 */
import { type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

const [intervalArgument = "1000", tokensArgument = "60"] = process.argv.slice(2);
const tokenIntervalMs = Number(intervalArgument);
const tokensPerStream = Number(tokensArgument);

interface OpenStream {
  response: ServerResponse;
  sent: number;
}

const open = new Set<OpenStream>();
let served = 0;

const frame = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`;
const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
  frame({
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 1,
    model: "bench-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
const TOKEN = chunk({ content: "token " });

function finish(stream: OpenStream): void {
  open.delete(stream);
  stream.response.write(chunk({}, "stop"));
  stream.response.write(
    frame({
      id: "chatcmpl-bench",
      object: "chat.completion.chunk",
      created: 1,
      model: "bench-model",
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: stream.sent, total_tokens: 5 + stream.sent },
    }),
  );
  stream.response.end("data: [DONE]\n\n");
}

const server = createServer((request, response) => {
  const parts: Buffer[] = [];
  request.on("data", (part: Buffer) => parts.push(part));
  request.on("end", () => {
    const body = JSON.parse(Buffer.concat(parts).toString("utf8") || "{}") as { stream?: boolean };
    if (request.url !== "/v1/chat/completions" || body.stream !== true) {
      response.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
      return;
    }
    served++;
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.write(chunk({ role: "assistant", content: "" }) + TOKEN);
    const stream: OpenStream = { response, sent: 1 };
    open.add(stream);
    // The client (Conduit) cancelled: the stream is gone for the provider too.
    response.on("close", () => open.delete(stream));
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 0;
server.requestTimeout = 0;

setInterval(() => {
  for (const stream of open) {
    if (stream.sent >= tokensPerStream) finish(stream);
    else {
      stream.response.write(TOKEN);
      stream.sent++;
    }
  }
}, tokenIntervalMs);

server.listen({ port: 0, host: "127.0.0.1", backlog: 8192 }, () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on("message", (message: string) => {
  if (message === "status") process.send?.({ open: open.size, served });
});
process.on("disconnect", () => process.exit(0));
