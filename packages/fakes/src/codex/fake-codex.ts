import { type FakeServer, sendJson, startFakeServer } from "../fake-server.js";

/**
 * A scripted answer of the codex backend: a raw SSE body (`hold`: written, then the stream stays
 * open without another byte — a backend stalled before its usage), or a JSON error with a status.
 */
export type CodexReply =
  | { kind: "sse"; text: string; hold?: boolean }
  | { kind: "json"; status: number; body: unknown; headers?: Record<string, string> };

export interface FakeCodex extends FakeServer {
  /** Account ids (`chatgpt-account-id`) answered with `usage_limit_reached` (429) until removed. */
  limited: Set<string>;
  /** Queues the next answers; with none queued the fake answers `codexStream()`. */
  reply(...replies: CodexReply[]): void;
}

/**
 * A Responses API stream as the codex backend sends it: `response.created`, one text delta,
 * `response.completed` with usage (50 in, 20 of them cached, 7 out), and a trailing comment. Its
 * odd spacing (`data:  `) and non-ASCII text are kept so tests can check a proxy passes bytes untouched.
 */
export function codexStream(text = "Hello from codex — héllo ✓", model = "gpt-5-codex"): string {
  const response = { id: "resp_1", object: "response", created_at: 1_700_000_000, model, status: "in_progress", output: [] };
  const usage = {
    input_tokens: 50,
    input_tokens_details: { cached_tokens: 20 },
    output_tokens: 7,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 57,
  };
  const events: Array<[string, unknown]> = [
    ["response.created", { type: "response.created", sequence_number: 0, response }],
    [
      "response.output_text.delta",
      { type: "response.output_text.delta", sequence_number: 1, item_id: "msg_1", output_index: 0, content_index: 0, delta: text },
    ],
    ["response.completed", { type: "response.completed", sequence_number: 2, response: { ...response, status: "completed", usage } }],
  ];
  return events.map(([event, data]) => `event: ${event}\ndata:  ${JSON.stringify(data)}\n\n`).join("") + ": trailing comment\n\n";
}

/**
 * A loopback stand-in for the codex backend (`POST /backend-api/codex/responses`): answers from a
 * queue (default: `codexStream()`, written in two pieces split inside an event), a
 * `usage_limit_reached` 429 for the `limited` accounts, and records every request.
 *
 * @example
 * const codex = await startFakeCodex();
 * codex.limited.add("acct-one"); // that account's next requests: 429 usage_limit_reached
 */
export async function startFakeCodex(): Promise<FakeCodex> {
  const queue: CodexReply[] = [];
  const limited = new Set<string>();
  const server = await startFakeServer((request, response) => {
    if (request.path !== "/backend-api/codex/responses") return void response.writeHead(404).end();
    if (limited.has(String(request.headers["chatgpt-account-id"])))
      return sendJson(response, 429, {
        error: { type: "usage_limit_reached", message: "The usage limit has been reached", resets_in_seconds: 3600 },
      });
    const reply = queue.shift() ?? { kind: "sse", text: codexStream() };
    if (reply.kind === "json") return sendJson(response, reply.status, reply.body, reply.headers);
    response.writeHead(200, { "content-type": "text/event-stream" });
    if (reply.hold) return void response.write(reply.text);
    // Two writes split inside an event: the proxy must not care where chunks fall.
    const middle = Math.floor(reply.text.length / 2);
    response.write(reply.text.slice(0, middle));
    setImmediate(() => response.end(reply.text.slice(middle)));
  });
  return Object.assign(server, { limited, reply: (...replies: CodexReply[]) => void queue.push(...replies) });
}
