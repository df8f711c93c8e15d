import { randomUUID } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import { listenOnLoopback } from "./loopback-server.js";

/** A scripted answer: sent instead of a generated message for the next request of one credential. */
export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** One request as the fake saw it and the exact bytes it answered. */
export interface RecordedExchange {
  credential: string;
  headers: IncomingMessage["headers"];
  url: string;
  body: Buffer;
  status: number;
  sent: Buffer;
}

export interface FakeAnthropic {
  url: string;
  exchanges: RecordedExchange[];
  /** Valid `x-api-key` values and OAuth access tokens. */
  credentials: Set<string>;
  /** Replies queued per credential, used first-in first-out. */
  script(credential: string, ...replies: FakeReply[]): void;
  /** Refresh grants received by `POST /oauth/token`, and the delay before each answer. */
  refreshes: Array<{ refreshToken: string }>;
  refreshDelayMs: number;
  /** Delay between SSE events (ms), so streams overlap. */
  eventGapMs: number;
  /** Delay before a generated answer starts (ms): a slow model. */
  responseDelayMs: number;
  /** Extra text deltas per streamed answer (64 characters each), for throughput runs. */
  extraDeltas: number;
  close(): Promise<void>;
}

function rateLimitHeaders(): Record<string, string> {
  const reset = new Date(Date.now() + 60_000).toISOString();
  return {
    "anthropic-ratelimit-requests-limit": "1000",
    "anthropic-ratelimit-requests-remaining": "999",
    "anthropic-ratelimit-requests-reset": reset,
    "anthropic-ratelimit-tokens-limit": "400000",
    "anthropic-ratelimit-tokens-remaining": "399000",
    "anthropic-ratelimit-tokens-reset": reset,
    "anthropic-ratelimit-unified-status": "allowed",
    "anthropic-ratelimit-unified-5h-utilization": "0.25",
    "anthropic-ratelimit-unified-5h-reset": String(Math.floor(Date.now() / 1000) + 3600),
    "anthropic-ratelimit-unified-reset": String(Math.floor(Date.now() / 1000) + 3600),
  };
}

interface MessageRequest {
  model?: string;
  stream?: boolean;
  tools?: Array<{ name: string }>;
  thinking?: { type: string };
  messages?: unknown[];
}

/** The content a real model would answer with: thinking (signed) when asked, a tool call when tools are given, text otherwise. */
function contentFor(request: MessageRequest): Array<Record<string, unknown>> {
  const content: Array<Record<string, unknown>> = [];
  if (request.thinking?.type === "enabled")
    content.push({ type: "thinking", thinking: "Let me think — ünïcödé ✓", signature: "EqQBCkYIBxgCKkBsig+/=\u00e9" });
  const tool = request.tools?.[0];
  if (tool)
    content.push({ type: "tool_use", id: `toolu_${randomUUID().slice(0, 8)}`, name: tool.name, input: { city: "Paris", unit: "c" } });
  else content.push({ type: "text", text: "Hello from the fake — ünïcödé ✓ 🚀" });
  return content;
}

function usageOf(request: MessageRequest) {
  return {
    input_tokens: 11 + (request.messages?.length ?? 0),
    output_tokens: 7,
    cache_creation_input_tokens: 3,
    cache_read_input_tokens: 5,
  };
}

function messageJson(request: MessageRequest): string {
  const content = contentFor(request);
  const stop = content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
  return JSON.stringify({
    id: `msg_${randomUUID().slice(0, 12)}`,
    type: "message",
    role: "assistant",
    model: request.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: usageOf(request),
  });
}

/** The Messages streaming events for one answer, as Anthropic frames them. */
function streamEvents(request: MessageRequest, extraDeltas: number): string[] {
  const content = contentFor(request);
  const usage = usageOf(request);
  const events: Array<[string, unknown]> = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: `msg_${randomUUID().slice(0, 12)}`,
          type: "message",
          role: "assistant",
          model: request.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    ],
    ["ping", { type: "ping" }],
  ];
  content.forEach((block, index) => {
    if (block.type === "thinking") {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } },
      ]);
      events.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: block.thinking } },
      ]);
      events.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } },
      ]);
    } else if (block.type === "tool_use") {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { ...block, input: {} } }]);
      const json = JSON.stringify(block.input);
      events.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(0, 8) } },
      ]);
      events.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(8) } },
      ]);
    } else {
      const text = String(block.text);
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
      const pieces = [
        text.slice(0, 10),
        text.slice(10),
        ...Array.from({ length: extraDeltas }, () => " lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do"),
      ];
      for (const piece of pieces)
        events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  const stop = content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
  events.push([
    "message_delta",
    { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

function credentialOf(request: IncomingMessage): string {
  const key = request.headers["x-api-key"];
  if (typeof key === "string") return key;
  return /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
}

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A local stand-in for api.anthropic.com speaking its wire format: `POST /v1/messages`
 * (JSON or SSE, rate-limit headers on every answer, 401 for unknown credentials, scripted
 * 429/529 storms) and an OAuth token endpoint (`POST /oauth/token`, refresh grant).
 */
export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const queues = new Map<string, FakeReply[]>();
  const fake: FakeAnthropic = {
    url: "",
    exchanges: [],
    credentials: new Set(),
    refreshes: [],
    refreshDelayMs: 0,
    eventGapMs: 0,
    extraDeltas: 0,
    responseDelayMs: 0,
    script: (credential, ...replies) => queues.set(credential, [...(queues.get(credential) ?? []), ...replies]),
    close: async () => {},
  };

  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readAll(request);
    if (request.url === "/oauth/token" && request.method === "POST") {
      const grant = JSON.parse(body.toString()) as { grant_type?: string; refresh_token?: string };
      fake.refreshes.push({ refreshToken: String(grant.refresh_token) });
      await new Promise((resolve) => setTimeout(resolve, fake.refreshDelayMs));
      if (grant.grant_type !== "refresh_token" || !grant.refresh_token?.startsWith("refresh-")) {
        response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_grant" }));
        return;
      }
      const accessToken = `access-${randomUUID()}`;
      fake.credentials.add(accessToken);
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(
          JSON.stringify({ access_token: accessToken, refresh_token: `refresh-${randomUUID()}`, expires_in: 3600, token_type: "Bearer" }),
        );
      return;
    }
    const credential = credentialOf(request);
    const record = (status: number, sent: Buffer) =>
      fake.exchanges.push({ credential, headers: request.headers, url: request.url ?? "", body, status, sent });
    if (!(request.url ?? "").startsWith("/v1/messages") || request.method !== "POST") {
      response.writeHead(404).end();
      return;
    }
    const scripted = queues.get(credential)?.shift();
    if (scripted) {
      const sent = Buffer.from(scripted.body ?? "");
      record(scripted.status, sent);
      response.writeHead(scripted.status, { "content-type": "application/json", ...scripted.headers }).end(sent);
      return;
    }
    if (!fake.credentials.has(credential)) {
      const sent = Buffer.from(JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }));
      record(401, sent);
      response.writeHead(401, { "content-type": "application/json" }).end(sent);
      return;
    }
    const parsed = JSON.parse(body.toString()) as MessageRequest;
    if ((request.url ?? "").startsWith("/v1/messages/count_tokens")) {
      // Anthropic counts the request's tokens; the fake answers a deterministic count from its size.
      const sent = Buffer.from(JSON.stringify({ input_tokens: Math.ceil(body.byteLength / 4) }));
      record(200, sent);
      response.writeHead(200, { "content-type": "application/json", "request-id": `req_${randomUUID()}` }).end(sent);
      return;
    }
    if (fake.responseDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.responseDelayMs));
    const headers = { "request-id": `req_${randomUUID()}`, ...rateLimitHeaders() };
    if (!parsed.stream) {
      const sent = Buffer.from(messageJson(parsed));
      record(200, sent);
      response.writeHead(200, { "content-type": "application/json", ...headers }).end(sent);
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers });
    const sent: Buffer[] = [];
    for (const event of streamEvents(parsed, fake.extraDeltas)) {
      if (response.destroyed) break;
      const bytes = Buffer.from(event);
      sent.push(bytes);
      response.write(bytes);
      if (fake.eventGapMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.eventGapMs));
    }
    record(200, Buffer.concat(sent));
    response.end();
  };

  const server: Server = createServer((request, response) => {
    answer(request, response).catch(() => response.destroy());
  });
  server.keepAliveTimeout = 30_000;
  const { url, close } = await listenOnLoopback(server);
  fake.url = url;
  fake.close = close;
  return fake;
}
