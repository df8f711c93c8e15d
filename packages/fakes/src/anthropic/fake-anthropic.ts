import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { type FakeScenario, type FakeServer, type RecordedRequest, sendJson, sleep, startFakeServer, writeFrames } from "../fake-server.js";
import type { AnswerModel, ModelTurn } from "../model-turn.js";
import type { FakePromptCache } from "./prompt-cache.js";
import { claudeAnswer, errorBody, eventFrame, type MessagesEvent, messageBody, rateLimitHeaders, streamEvents } from "./anthropic-wire.js";

/**
 * A scripted answer, sent instead of a generated one: a JSON (or raw text) body with a status,
 * or SSE events — `cut` destroys the connection after them, `hold` never ends the stream.
 */
export type FakeReply =
  | { status?: number; headers?: Record<string, string>; body?: unknown }
  | { events: MessagesEvent[]; cut?: boolean; hold?: boolean };

/** One `/v1/messages` request as the fake saw it and the exact bytes it answered. */
export interface RecordedExchange {
  credential: string;
  headers: IncomingHttpHeaders;
  url: string;
  body: Buffer;
  status: number;
  sent: Buffer;
}

export interface FakeAnthropicOptions {
  /** What the model answers; default `claudeAnswer` (thinking, a tool call or a text, as the request asks). */
  answer?: AnswerModel;
  /** Answers every credential instead of only those in `credentials` (default false: unknown ones get 401). */
  anyCredential?: boolean;
  /** The count `POST /v1/messages/count_tokens` answers; default a quarter of the body's bytes. */
  countTokens?: (request: RecordedRequest) => number;
}

export interface FakeAnthropic extends FakeServer {
  exchanges: RecordedExchange[];
  /** Valid `x-api-key` values and OAuth access tokens. */
  credentials: Set<string>;
  anyCredential: boolean;
  answer: AnswerModel;
  /** Replies queued per credential, used first-in first-out, before anything else. */
  script(credential: string, ...replies: FakeReply[]): void;
  /** Replies queued for whichever credential asks next (after that credential's own script). */
  reply(...replies: FakeReply[]): void;
  /** Refresh grants received by `POST /oauth/token`, and the delay before each answer. */
  refreshes: Array<{ refreshToken: string }>;
  refreshDelayMs: number;
  /** Delay between SSE events (ms), so streams overlap. */
  eventGapMs: number;
  /** Delay before a generated answer starts (ms): a slow model. */
  responseDelayMs: number;
  /** Anthropic's prompt-cache semantics for generated answers (`cache_control` breakpoints, 5m/1h TTLs); off by default. */
  promptCache?: FakePromptCache;
  /** Extra text deltas per streamed answer (64 characters each), for throughput runs. */
  extraDeltas: number;
  countTokens(request: RecordedRequest): number;
}

const FILLER = " lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do";

/** The scenarios answered with an Anthropic error: status, error type, headers. */
const failures: Partial<Record<FakeScenario, [number, string, Record<string, string>]>> = {
  unauthorized: [401, "authentication_error", {}],
  "rate-limited": [429, "rate_limit_error", { "retry-after": "7" }],
  "server-error": [500, "api_error", {}],
};

function credentialOf(headers: IncomingHttpHeaders): string {
  const key = headers["x-api-key"];
  if (typeof key === "string") return key;
  return /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1] ?? "";
}

/** `POST /oauth/token` with a refresh grant: a new access token (then a valid credential) for a `refresh-…` token. */
async function answerRefresh(request: RecordedRequest, response: ServerResponse, fake: FakeAnthropic): Promise<void> {
  const grant = request.body as { grant_type?: string; refresh_token?: string };
  fake.refreshes.push({ refreshToken: String(grant.refresh_token) });
  await sleep(fake.refreshDelayMs);
  if (grant.grant_type !== "refresh_token" || !grant.refresh_token?.startsWith("refresh-"))
    return sendJson(response, 400, { error: "invalid_grant" });
  const accessToken = `access-${randomUUID()}`;
  fake.credentials.add(accessToken);
  sendJson(response, 200, { access_token: accessToken, refresh_token: `refresh-${randomUUID()}`, expires_in: 3600, token_type: "Bearer" });
}

/** Streams SSE events and resolves with the bytes that went out (a stream cut short: what it had sent). */
async function stream(response: ServerResponse, events: MessagesEvent[], fake: FakeAnthropic, ending: "end" | "cut" | "stall") {
  const frames = events.map(eventFrame);
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "request-id": `req_${randomUUID()}`,
    ...rateLimitHeaders(),
  });
  const written = await writeFrames(
    response,
    frames.map((frame) => [frame]),
    { gapMs: fake.eventGapMs, ending },
  );
  return Buffer.from(frames.slice(0, written).join(""));
}

/** Per-credential scripts and the queue for any credential. */
interface Scripts {
  byCredential: Map<string, FakeReply[]>;
  anyone: FakeReply[];
}

async function answerMessages(request: RecordedRequest, response: ServerResponse, fake: FakeAnthropic, scripts: Scripts) {
  const credential = credentialOf(request.headers);
  const record = (status: number, sent: Buffer) =>
    fake.exchanges.push({ credential, headers: request.headers, url: request.path, body: request.raw, status, sent });
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    const sent = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    record(status, sent);
    response.writeHead(status, { "content-type": "application/json", "request-id": `req_${randomUUID()}`, ...headers }).end(sent);
  };
  const scripted = scripts.byCredential.get(credential)?.shift() ?? scripts.anyone.shift();
  if (scripted && "events" in scripted)
    return record(200, await stream(response, scripted.events, fake, scripted.cut ? "cut" : scripted.hold ? "stall" : "end"));
  if (scripted) return json(scripted.status ?? 200, scripted.body ?? "", scripted.headers);
  const failure = failures[fake.scenario];
  if (failure) return json(failure[0], errorBody(failure[1]), failure[2]);
  if (!fake.anyCredential && !fake.credentials.has(credential)) return json(401, errorBody("authentication_error", "invalid x-api-key"));
  // Anthropic counts the request's tokens; the fake answers a deterministic count.
  if (request.path.startsWith("/v1/messages/count_tokens")) return json(200, { input_tokens: fake.countTokens(request) });
  const model = String(request.body.model ?? "claude-sonnet-4-5");
  if (fake.scenario === "cut" || fake.scenario === "stall") {
    // A JSON call gets nothing at all; a stream gets its first event, then breaks off or goes silent.
    if (fake.scenario === "stall" && request.body.stream !== true) return;
    return record(200, await stream(response, streamEvents({}, model).slice(0, 1), fake, fake.scenario));
  }
  if (fake.responseDelayMs > 0) await sleep(fake.responseDelayMs);
  const answered = fake.answer(request, fake.scenario);
  // With a prompt cache, the input is split as Anthropic's cache would split it.
  const generated: ModelTurn = fake.promptCache
    ? { ...answered, usage: { output: answered.usage?.output ?? 5, ...fake.promptCache.usageOf(request.body as Record<string, unknown>) } }
    : answered;
  if (request.body.stream !== true) return json(200, messageBody(generated, model), rateLimitHeaders());
  // Extra deltas lengthen streams only (the bench's long SSE streams); a JSON answer stays short.
  const turn: ModelTurn = generated.text ? { ...generated, text: [...generated.text, ...Array(fake.extraDeltas).fill(FILLER)] } : generated;
  record(200, await stream(response, streamEvents(turn, model), fake, "end"));
}

/**
 * A local stand-in for api.anthropic.com speaking its wire format: `POST /v1/messages` (JSON or
 * SSE, rate-limit headers on every answer, 401 for unknown credentials, scripted 429/529 storms),
 * `POST /v1/messages/count_tokens`, and an OAuth token endpoint (`POST /oauth/token`, refresh grant).
 * Failures for every request (401/429/500, cut or stalled streams, a hang) come from `scenario`.
 *
 * @example
 * const anthropic = await startFakeAnthropic();
 * anthropic.credentials.add("sk-ant-test");
 * anthropic.script("sk-ant-test", { status: 429, body: { type: "error", error: { type: "rate_limit_error" } } });
 */
export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const scripts: Scripts = { byCredential: new Map(), anyone: [] };
  const server = await startFakeServer((request, response) => {
    if (request.path === "/oauth/token" && request.method === "POST") return answerRefresh(request, response, fake);
    if (!request.path.startsWith("/v1/messages") || request.method !== "POST") return void response.writeHead(404).end();
    return answerMessages(request, response, fake, scripts);
  });
  const fake: FakeAnthropic = Object.assign(server, {
    exchanges: [],
    credentials: new Set<string>(),
    anyCredential: options.anyCredential ?? false,
    answer: options.answer ?? claudeAnswer,
    countTokens: options.countTokens ?? ((request: RecordedRequest) => Math.ceil(request.raw.byteLength / 4)),
    script: (credential: string, ...replies: FakeReply[]) =>
      scripts.byCredential.set(credential, [...(scripts.byCredential.get(credential) ?? []), ...replies]),
    reply: (...replies: FakeReply[]) => void scripts.anyone.push(...replies),
    refreshes: [],
    refreshDelayMs: 0,
    eventGapMs: 0,
    responseDelayMs: 0,
    extraDeltas: 0,
  });
  return fake;
}
