import type { ServerResponse } from "node:http";
import { type FakeScenario, type FakeServer, type RecordedRequest, sendJson, sleep, startFakeServer, writeFrames } from "./fake-server.js";
import { type AnswerModel, conversationAnswer, type TurnUsage, type ModelTurn } from "./model-turn.js";

/** One call a vendor fake understood: what it is, for which model, and the conversation in the neutral shape `AnswerModel`s read. */
export interface VendorCall {
  operation: "generate" | "stream" | "embed";
  model: string;
  /** `{ messages: [{role, content}], tools: [{name}] }`: roles `user`/`assistant`/`tool`, what `conversationAnswer` counts. */
  conversation: Record<string, unknown>;
}

/** The failures every vendor fake can play, by scenario. */
export type VendorFailure = "unauthorized" | "forbidden" | "rate-limited" | "server-error" | "not-found" | "bad-request";

/** The HTTP status of each failure, as the vendors with plain status codes answer them. */
export const VENDOR_FAILURE_STATUS: Record<VendorFailure, number> = {
  unauthorized: 401,
  forbidden: 403,
  "rate-limited": 429,
  "server-error": 500,
  "not-found": 404,
  "bad-request": 400,
};

/** The key of an `Authorization: Bearer <key>` header. */
export const bearerCredential = (request: { headers: Record<string, unknown> }) =>
  /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ""))?.[1];

/** How one vendor's wire looks: its routes, credential check, bodies, stream frames and errors. */
export interface VendorWire {
  /** The call a request makes, or a failure (an unknown route, a missing parameter). */
  route(request: RecordedRequest): VendorCall | { failure: VendorFailure; message: string };
  /** The credential the request carries, checked against the fake's `keys` (any, when it holds none); undefined when it is missing or unverifiable. */
  credential(request: RecordedRequest): string | undefined;
  error(failure: VendorFailure, message: string): { status: number; body: unknown; headers?: Record<string, string> };
  body(turn: ModelTurn, call: VendorCall): unknown;
  /** Stream frames, one group per write; the last group ends the answer unless the turn is cut. */
  frames(turn: ModelTurn, call: VendorCall): Array<Array<string | Buffer>>;
  streamHeaders: Record<string, string>;
  embeddings?(call: VendorCall, request: RecordedRequest): unknown;
}

export interface VendorFake extends FakeServer {
  /** What the model answers next; tests may swap it between calls. */
  answer: AnswerModel;
  /** Credentials accepted; empty accepts any present one. */
  keys: Set<string>;
}

const SCENARIO_FAILURES: Partial<Record<FakeScenario, VendorFailure>> = {
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  "rate-limited": "rate-limited",
  "server-error": "server-error",
};

/** Usage every vendor fake reports by default: cache reads and reasoning included, so their mapping is checked. */
export const VENDOR_USAGE: TurnUsage = { input: 12, output: 8, cacheRead: 5, reasoning: 3 };

function fail(wire: VendorWire, response: ServerResponse, failure: VendorFailure, message: string): void {
  const { status, body, headers } = wire.error(failure, message);
  // A rate limit always says when to come back: what key pools cool a key by.
  const retry: Record<string, string> = failure === "rate-limited" ? { "retry-after": "7" } : {};
  sendJson(response, status, body, { ...retry, ...headers });
}

/**
 * A loopback fake of one vendor's API from its wire description: records every request, checks
 * the credential, plays the scenario's failure (401, 403, 429 with `retry-after: 7`, 500, a cut or
 * stalled stream, a hang), and otherwise answers `answer`'s turn as JSON, a stream or embeddings.
 */
export async function startVendorFake(wire: VendorWire, speaker: string, answer?: AnswerModel): Promise<VendorFake> {
  const handle = async (request: RecordedRequest, response: ServerResponse) => {
    const routed = wire.route(request);
    if ("failure" in routed) return fail(wire, response, routed.failure, routed.message);
    const credential = wire.credential(request);
    // Echoing the refused key, as some vendors do: a client must keep it out of what it shows.
    if (credential === undefined || (fake.keys.size > 0 && !fake.keys.has(credential)))
      return fail(wire, response, "unauthorized", `Incorrect API key provided: ${credential ?? "(none)"}`);
    const failure = SCENARIO_FAILURES[fake.scenario];
    if (failure) return fail(wire, response, failure, `${failure} from fake ${speaker}`);
    if (routed.operation === "embed") {
      if (!wire.embeddings) return fail(wire, response, "not-found", `no embeddings at ${request.path}`);
      return sendJson(response, 200, wire.embeddings(routed, request));
    }
    const call = { ...request, body: routed.conversation };
    if (fake.scenario === "cut" || fake.scenario === "stall") {
      if (routed.operation === "generate") return fake.scenario === "cut" ? response.socket?.destroy() : undefined;
      response.writeHead(200, wire.streamHeaders);
      const first = wire.frames({ text: ["partial ", "answer"] }, routed).slice(0, 1);
      await writeFrames(response, first, { ending: fake.scenario });
      return;
    }
    const turn = fake.answer(call, fake.scenario);
    if (routed.operation === "generate") {
      if (turn.pieceDelayMs) await sleep(turn.pieceDelayMs * (turn.text?.length ?? 1));
      return sendJson(response, 200, wire.body(turn, routed));
    }
    response.writeHead(200, wire.streamHeaders);
    await writeFrames(response, wire.frames(turn, routed), {
      ...(turn.pieceDelayMs ? { gapMs: turn.pieceDelayMs } : {}),
      ending: turn.cut ? "cut" : "end",
    });
  };
  const server = await startFakeServer(handle);
  const fake: VendorFake = Object.assign(server, { answer: answer ?? conversationAnswer(speaker, VENDOR_USAGE), keys: new Set<string>() });
  return fake;
}

/** The usage of a turn, with the defaults vendor fakes report. */
export function turnUsage(turn: ModelTurn): Required<Pick<TurnUsage, "input" | "output">> & TurnUsage {
  return {
    ...VENDOR_USAGE,
    ...turn.usage,
    input: turn.usage?.input ?? VENDOR_USAGE.input,
    output: turn.usage?.output ?? VENDOR_USAGE.output,
  };
}

/** The text of a neutral message's content (a string, or parts with `text`). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}
