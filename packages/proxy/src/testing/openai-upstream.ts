import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import { listenOnLoopback } from "./loopback-server.js";

/** One scripted answer of the fake Messages API. */
export type FakeReply =
  | { kind: "json"; status?: number; body: unknown; headers?: Record<string, string> }
  /** SSE frames `event: NAME\ndata: JSON\n\n`; `cut` ends the body (socket destroyed) after the frames, `hold` never ends it. */
  | { kind: "sse"; events: Array<{ event: string; data: unknown }>; cut?: boolean; hold?: boolean };

export interface FakeAnthropic {
  url: string;
  /** Bodies (parsed JSON) and headers of the requests received, in order. */
  requests: Array<{ body: Record<string, unknown>; headers: IncomingMessage["headers"]; closed: Promise<void> }>;
  /** Queues the next answers; with none queued the fake answers a short text message. */
  reply(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

export function textMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "msg_fake_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5-20250929",
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    ...extra,
  };
}

/** The Messages API's streaming events for a text answer split into `pieces`. */
export function textStreamEvents(
  pieces: string[],
  usage = { input_tokens: 10, cache_read_input_tokens: 4, output_tokens: 1 },
): Array<{ event: string; data: unknown }> {
  return [
    { event: "message_start", data: { type: "message_start", message: { ...textMessage(""), content: [], stop_reason: null, usage } } },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
    { event: "ping", data: { type: "ping" } },
    ...pieces.map((text) => ({
      event: "content_block_delta",
      data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
    })),
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    {
      event: "message_delta",
      data: { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: pieces.length } },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  ];
}

function writeReply(response: ServerResponse, reply: FakeReply): void {
  if (reply.kind === "json") {
    response.writeHead(reply.status ?? 200, { "content-type": "application/json", "request-id": "req_fake", ...reply.headers });
    response.end(JSON.stringify(reply.body));
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  const frames = reply.events.map(({ event, data }) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
  // A cut body is destroyed only once its frames have reached the socket: the client sees a stream break off.
  if (reply.cut) response.write(frames, () => setTimeout(() => response.socket?.destroy(), 20));
  else if (reply.hold) response.write(frames);
  else response.end(frames);
}

/**
 * A local stand-in for the Messages API speaking its wire format (JSON and SSE), answering
 * from a queue of scripted replies and recording what it received.
 *
 * @example
 * const fake = await startFakeAnthropic();
 * fake.reply({ kind: "json", body: textMessage("Hello") });
 */
export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const queue: FakeReply[] = [];
  const requests: FakeAnthropic["requests"] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      const closed = new Promise<void>((resolve) => response.once("close", () => resolve()));
      requests.push({ body, headers: request.headers, closed });
      const fallback: FakeReply = body.stream
        ? { kind: "sse", events: textStreamEvents(["Hello", " there"]) }
        : { kind: "json", body: textMessage("Hello there") };
      writeReply(response, queue.shift() ?? fallback);
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return { url, requests, reply: (...replies) => queue.push(...replies), close };
}

/** A `SendMessages` that forwards to the fake (what the pool does with a real account). */
export function forwardTo(fake: FakeAnthropic) {
  return (body: Uint8Array, init: { headers: Record<string, string>; signal: AbortSignal }) =>
    fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      body: body as Uint8Array<ArrayBuffer>,
      headers: { ...init.headers, "x-api-key": "sk-ant-test" },
      signal: init.signal,
    });
}
