import type { ServerResponse } from "node:http";
import {
  type FakeScenario,
  type FakeServer,
  type RecordedRequest,
  sendJson,
  sleep,
  startEventStream,
  startFakeServer,
  writeFrames,
} from "../fake-server.js";
import { type AnswerModel, conversationAnswer } from "../model-turn.js";
import { chunkFrame, completionBody, embeddingsBody, errorBody, streamFrames, type UsageStyle } from "./openai-wire.js";

export interface FakeOpenAIOptions {
  /** What the model answers; default `conversationAnswer()` ("Upstream heard N messages", tools by scenario). */
  answer?: AnswerModel;
  /** Where usage details go: OpenAI's and xAI's fields (default), Groq's `x_groq`, DeepSeek's cache-hit counts. */
  usageStyle?: UsageStyle;
}

/** An OpenAI-compatible provider on loopback. */
export interface FakeOpenAI extends FakeServer {
  /** `url` + `/v1`: what `OPENAI_BASE_URL` (or an SDK's `baseURL`) takes. */
  baseURL: string;
  /** What the model answers next; tests may swap it between calls. */
  answer: AnswerModel;
  /** Lets held streams (`hold: true` turns) send the rest of their answer; later holds pass at once. */
  release(): void;
}

/** The scenarios answered with an OpenAI error: status, error type, headers. */
const failures: Partial<Record<FakeScenario, [number, string, Record<string, string>]>> = {
  unauthorized: [401, "invalid_api_key", {}],
  forbidden: [403, "permission_denied", {}],
  "rate-limited": [429, "rate_limit_exceeded", { "retry-after": "7" }],
  "server-error": [500, "server_error", {}],
};

async function answerChat(
  request: RecordedRequest,
  response: ServerResponse,
  fake: FakeOpenAI,
  held: Promise<void>,
  style: UsageStyle,
): Promise<void> {
  const failure = failures[fake.scenario];
  if (failure) {
    const [status, type, headers] = failure;
    return sendJson(response, status, errorBody(type), headers);
  }
  const model = String(request.body.model ?? "gpt-4o-mini");
  const stream = request.body.stream === true;
  if (fake.scenario === "cut" || fake.scenario === "stall") {
    // A JSON call gets nothing at all; a stream gets its first frame, then breaks off or goes silent.
    if (!stream && fake.scenario === "stall") return;
    startEventStream(response);
    await writeFrames(response, [[chunkFrame(model, { role: "assistant", content: "partial " })]], {
      ending: fake.scenario === "cut" ? "cut" : "stall",
    });
    return;
  }
  const turn = fake.answer(request, fake.scenario);
  if (!stream) {
    if (turn.pieceDelayMs) await sleep(turn.pieceDelayMs * (turn.text?.length ?? 1));
    if (response.destroyed) return;
    return sendJson(response, 200, completionBody(turn, model, style));
  }
  startEventStream(response);
  await writeFrames(response, streamFrames(turn, model, style), {
    ...(turn.pieceDelayMs ? { gapMs: turn.pieceDelayMs } : {}),
    ...(turn.hold ? { holdAt: 1, held } : {}),
    ending: turn.cut ? "cut" : "end",
  });
}

/**
 * A local stand-in for an OpenAI-compatible provider speaking its wire format:
 * `POST /v1/chat/completions` (JSON, or SSE with a final usage chunk when `stream: true`) and
 * `POST /v1/embeddings`. What the model says comes from `answer`; failures (401/429/500, a cut or
 * stalled stream, a hang) from `scenario`. Every request is recorded.
 *
 * @example
 * const openai = await startFakeOpenAI();
 * const runtime = createRuntime({ env: { OPENAI_BASE_URL: openai.baseURL } });
 * openai.scenario = "rate-limited"; // every next call: 429 with retry-after: 7
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  let releaseHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (releaseHeld = resolve));
  const server = await startFakeServer((request, response) => {
    if (request.path.endsWith("/embeddings")) return sendJson(response, 200, embeddingsBody(request.body));
    if (!request.path.split("?")[0]?.endsWith("/chat/completions"))
      return sendJson(response, 404, errorBody("not_found", `no route ${request.method} ${request.path}`));
    return answerChat(request, response, fake, held, options.usageStyle ?? "openai");
  });
  const closeServer = server.close;
  const fake: FakeOpenAI = Object.assign(server, {
    baseURL: `${server.url}/v1`,
    answer: options.answer ?? conversationAnswer(),
    release: () => releaseHeld(),
    close: () => {
      releaseHeld();
      return closeServer();
    },
  });
  return fake;
}
