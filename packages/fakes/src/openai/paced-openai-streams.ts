import { type ServerResponse, createServer } from "node:http";
import { listenOnLoopback } from "../listen-on-loopback.js";
import { chunkFrame } from "./openai-wire.js";

export interface PacedOpenAIStreams {
  url: string;
  /** Streams still being answered. */
  readonly open: number;
  /** Streamed chat completions answered so far. */
  readonly served: number;
  close(): Promise<void>;
}

const MODEL = "bench-model";
const TOKEN = chunkFrame(MODEL, { content: "token " });

/**
 * The OpenAI fake for load: every streamed `POST /v1/chat/completions` gets the role chunk and a
 * first token at once, then one token per `tokenIntervalMs` from ONE timer for all streams (a
 * timer per stream would make the fake the bottleneck at thousands of streams), then the finish
 * chunk, a usage chunk and `[DONE]` after `tokens` tokens. It records nothing: a bench needs the
 * traffic, not the requests (use `startFakeOpenAI` to assert on them).
 *
 * @example
 * const upstream = await startPacedOpenAIStreams({ tokenIntervalMs: 1000, tokens: 60 });
 */
export async function startPacedOpenAIStreams(options: { tokenIntervalMs: number; tokens: number }): Promise<PacedOpenAIStreams> {
  const streams = new Map<ServerResponse, number>();
  let served = 0;
  const finish = (response: ServerResponse, sent: number) => {
    streams.delete(response);
    response.write(chunkFrame(MODEL, {}, "stop"));
    const usage = { prompt_tokens: 5, completion_tokens: sent, total_tokens: 5 + sent };
    response.write(
      `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1, model: MODEL, choices: [], usage })}\n\n`,
    );
    response.end("data: [DONE]\n\n");
  };
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      let body: { stream?: boolean } = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8") || "{}");
      } catch {}
      if (request.url !== "/v1/chat/completions" || body.stream !== true) {
        response
          .writeHead(404, { "content-type": "application/json" })
          .end('{"error":{"message":"not found","type":"invalid_request_error"}}');
        return;
      }
      served++;
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      response.write(chunkFrame(MODEL, { role: "assistant", content: "" }) + TOKEN);
      streams.set(response, 1);
      // The client (Conduit) cancelled: the stream is gone for the provider too.
      response.on("close", () => streams.delete(response));
    });
  });
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  const timer = setInterval(() => {
    for (const [response, sent] of streams) {
      if (sent >= options.tokens) finish(response, sent);
      else {
        response.write(TOKEN);
        streams.set(response, sent + 1);
      }
    }
  }, options.tokenIntervalMs);
  timer.unref();
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    get open() {
      return streams.size;
    },
    get served() {
      return served;
    },
    close: () => {
      clearInterval(timer);
      return close();
    },
  };
}
