import { type IncomingHttpHeaders, type Server, createServer } from "node:http";
import { listenOnLoopback } from "./loopback-server.js";

export type CodexReply = { kind: "sse"; text: string } | { kind: "json"; status: number; body: unknown; headers?: Record<string, string> };

/** A Responses API stream as the codex backend sends it (with its odd spacing kept, to check bytes). */
export function codexStream(text = "Hello from codex", model = "gpt-5-codex"): string {
  const response = { id: "resp_1", object: "response", created_at: 1_700_000_000, model, status: "in_progress", output: [] };
  const events: Array<[string, unknown]> = [
    ["response.created", { type: "response.created", sequence_number: 0, response }],
    [
      "response.output_text.delta",
      { type: "response.output_text.delta", sequence_number: 1, item_id: "msg_1", output_index: 0, content_index: 0, delta: text },
    ],
    [
      "response.completed",
      {
        type: "response.completed",
        sequence_number: 2,
        response: {
          ...response,
          status: "completed",
          usage: {
            input_tokens: 50,
            input_tokens_details: { cached_tokens: 20 },
            output_tokens: 7,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 57,
          },
        },
      },
    ],
  ];
  return events.map(([event, data]) => `event: ${event}\ndata:  ${JSON.stringify(data)}\n\n`).join("") + ": trailing comment\n\n";
}

/**
 * A loopback stand-in for the codex backend (`POST /backend-api/codex/responses`): answers from
 * a queue (default: a short SSE stream) and records each request's headers with the account
 * they were sent for.
 */
export async function startFakeCodex(): Promise<{
  url: string;
  requests: Array<{ headers: IncomingHttpHeaders; body: string }>;
  reply(...replies: CodexReply[]): void;
  close(): Promise<void>;
}> {
  const queue: CodexReply[] = [];
  const requests: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      requests.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (request.url !== "/backend-api/codex/responses") {
        response.writeHead(404).end();
        return;
      }
      const reply = queue.shift() ?? { kind: "sse", text: codexStream() };
      if (reply.kind === "json") {
        response.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        response.end(JSON.stringify(reply.body));
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      // Two writes split inside an event: the proxy must not care where chunks fall.
      const middle = Math.floor(reply.text.length / 2);
      response.write(reply.text.slice(0, middle));
      setImmediate(() => response.end(reply.text.slice(middle)));
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return { url, requests, reply: (...replies) => queue.push(...replies), close };
}
