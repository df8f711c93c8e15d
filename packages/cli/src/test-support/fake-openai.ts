import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeOpenAI {
  /** Base URL for OPENAI_BASE_URL. */
  url: string;
  /** Bodies of the chat completion requests received. */
  requests: Array<Record<string, unknown>>;
  /** Lets a held stream send the rest of its answer. */
  release(): void;
  close(): Promise<void>;
}

const chunk = (content: string | undefined, finishReason: string | null = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finishReason }] })}\n\n`;

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const part of request) chunks.push(part as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
}

/**
 * A loopback server speaking the OpenAI Chat Completions wire format. `mode: "ok"` answers
 * "Hello from upstream"; a stream sends "Hello " and holds the rest until `release()`, so a test
 * can see text arrive before the answer is complete. `mode: "unauthorized"` answers 401 like OpenAI.
 */
export async function startFakeOpenAI(mode: "ok" | "unauthorized" = "ok"): Promise<FakeOpenAI> {
  let releaseHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (releaseHeld = resolve));
  const requests: Array<Record<string, unknown>> = [];
  const server = createServer(async (request, response) => {
    const body = await readJson(request);
    requests.push(body);
    if (mode === "unauthorized") {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: { message: "Incorrect API key provided: sk-te***", type: "invalid_request_error", code: "invalid_api_key" },
        }),
      );
      return;
    }
    if (body.stream !== true) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1,
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content: "Hello from upstream" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
        }),
      );
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.write(chunk("Hello "));
    await held;
    response.write(chunk("from upstream"));
    response.write(chunk(undefined, "stop"));
    response.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    release: () => releaseHeld(),
    close: () =>
      new Promise<void>((resolve) => {
        releaseHeld();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
