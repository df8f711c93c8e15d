import type { FakeScenario, RecordedRequest } from "./fake-server.js";

/** Token counts a fake reports for one answer. */
export interface TurnUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** Cache writes for 1 hour (Anthropic): with it, the answer splits its writes by TTL in `cache_creation`. */
  cacheWrite1h?: number;
  /** Output tokens spent reasoning (part of `output`), for vendors that report them. */
  reasoning?: number;
}

/**
 * What a fake model answers to one request, whatever the vendor; each fake renders it in its own
 * wire format, as one JSON body or as a stream (one text delta per piece).
 */
export interface ModelTurn {
  /** Text pieces: one streamed delta each, joined for a JSON answer. */
  text?: string[];
  /** A tool call (instead of the text for OpenAI; after any text for Anthropic). */
  toolCall?: { id?: string; name: string; input: Record<string, unknown> };
  /** Anthropic only: a signed thinking block before everything else. */
  thinking?: { text: string; signature: string };
  usage?: TurnUsage;
  /** Milliseconds between streamed pieces (and pieces × this before a JSON answer): a real model's pace. */
  pieceDelayMs?: number;
  /** After the pieces, destroy the socket instead of finishing the stream: a link cut mid-answer. */
  cut?: boolean;
  /** After the first piece, wait for the fake's `release()`: lets a test see text arrive before the answer ends. */
  hold?: boolean;
}

/** Picks the answer of a request; `scenario` is the fake's, for answers that depend on it. */
export type AnswerModel = (request: RecordedRequest, scenario: FakeScenario) => ModelTurn;

type AnyMessage = { role?: string; content?: unknown };

/** The text of a tool result in the conversation (OpenAI `role: "tool"` or an Anthropic `tool_result` block), if any. */
function toolResultOf(messages: AnyMessage[]): string | undefined {
  for (const message of messages) {
    if (message.role === "tool") return String(message.content);
    if (Array.isArray(message.content) && message.content.some((part: { type?: string }) => part.type === "tool_result"))
      return "a tool result";
  }
  return undefined;
}

/** The first tool a request declares, in either vendor's shape. */
function firstDeclaredTool(body: Record<string, unknown>): string | undefined {
  const tool = (body.tools as Array<{ name?: string; function?: { name: string } }> | undefined)?.[0];
  return tool?.function?.name ?? tool?.name;
}

/**
 * A model that says how many messages it heard (`"<speaker> heard 3 messages"`), streamed word by
 * word; in the `tool` scenario it first calls `calculator` (`first-tool`: the first declared tool)
 * with `{ expression: "6*7" }`, and answers `"The tool said …"` once the result is in the conversation.
 *
 * @example
 * const fake = await startFakeAnthropic({ answer: conversationAnswer("Anthropic") });
 */
export function conversationAnswer(speaker = "Upstream", usage: TurnUsage = { input: 11, output: 7 }): AnswerModel {
  return (request, scenario) => {
    const messages = (request.body.messages ?? []) as AnyMessage[];
    const toolResult = toolResultOf(messages);
    if ((scenario === "tool" || scenario === "first-tool") && toolResult === undefined) {
      const name = scenario === "first-tool" ? (firstDeclaredTool(request.body) ?? "none") : "calculator";
      return { toolCall: { id: "call_1", name, input: { expression: "6*7" } }, usage };
    }
    const heard = messages.filter((message) => message.role !== "system").length;
    const text = toolResult === undefined ? `${speaker} heard ${heard} messages` : `The tool said ${toolResult}`;
    return { text: text.split(/(?<= )/), usage };
  };
}

/**
 * A model whose behavior the requested model name picks, so one fake serves every scenario of a
 * suite: `slow-<pieces>x<ms>` answers `<pieces>` words, one every `<ms>`; `cut-<pieces>` sends that
 * many words, then the connection breaks; any other name answers three words at once.
 *
 * @example
 * const fake = await startFakeOpenAI({ answer: answerByModelName });
 * // model "slow-200x20": 200 words over 4 seconds
 */
export const answerByModelName: AnswerModel = (request) => {
  const model = String(request.body.model ?? "");
  const slow = /^slow-(\d+)x(\d+)$/.exec(model);
  const cut = /^cut-(\d+)$/.exec(model);
  const pieces = Number(slow?.[1] ?? cut?.[1] ?? 3);
  return {
    text: Array.from({ length: pieces }, (_, index) => `word${index} `),
    usage: { input: 12, output: pieces },
    pieceDelayMs: slow ? Number(slow[2]) : cut ? 5 : 0,
    cut: cut !== null,
  };
};

/**
 * A model that always answers the same text pieces with the same usage.
 *
 * @example
 * const fake = await startFakeAnthropic({ anyCredential: true, answer: fixedAnswer(["Hello", " there"]) });
 */
export function fixedAnswer(text: string[], usage?: TurnUsage): AnswerModel {
  return () => ({ text, ...(usage ? { usage } : {}) });
}
