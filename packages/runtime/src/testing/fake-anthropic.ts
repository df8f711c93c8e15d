import type { ServerResponse } from "node:http";
import {
  cutAfter,
  stallAfter,
  type FakeUpstream,
  type RecordedRequest,
  sendJson,
  startEventStream,
  startFakeUpstream,
} from "./http-fixture.js";

type AnthropicMessage = { role: string; content: string | Array<{ type: string; content?: unknown }> };

function toolResultGiven(request: RecordedRequest): boolean {
  return (request.body.messages as AnthropicMessage[]).some(
    (message) => Array.isArray(message.content) && message.content.some((part) => part.type === "tool_result"),
  );
}

function event(name: string, data: Record<string, unknown>): string {
  return `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
}

const messageStart = event("message_start", {
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-haiku-4-5",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1 },
  },
});

function answer(request: RecordedRequest, response: ServerResponse, upstream: FakeUpstream): void {
  const wantsTool = upstream.scenario === "tool" && !toolResultGiven(request);
  const text = toolResultGiven(request)
    ? "Anthropic used the tool"
    : `Anthropic heard ${(request.body.messages as unknown[]).length} messages`;
  const toolUse = { type: "tool_use", id: "toolu_1", name: "calculator", input: { expression: "6*7" } };
  if (request.body.stream !== true) {
    sendJson(response, 200, {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: request.body.model,
      content: wantsTool ? [toolUse] : [{ type: "text", text }],
      stop_reason: wantsTool ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 5 },
    });
    return;
  }
  startEventStream(response);
  response.write(messageStart);
  if (wantsTool) {
    response.write(event("content_block_start", { index: 0, content_block: { ...toolUse, input: {} } }));
    response.write(event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '{"expression":' } }));
    response.write(event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '"6*7"}' } }));
  } else {
    response.write(event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
    response.write(event("ping", {}));
    for (const word of text.split(/(?<= )/))
      response.write(event("content_block_delta", { index: 0, delta: { type: "text_delta", text: word } }));
  }
  response.write(event("content_block_stop", { index: 0 }));
  response.write(
    event("message_delta", {
      delta: { stop_reason: wantsTool ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: 5 },
    }),
  );
  response.end(event("message_stop", {}));
}

/** A loopback server speaking the Anthropic Messages wire format (JSON and its SSE event sequence). */
export function startFakeAnthropic(): Promise<FakeUpstream> {
  return startFakeUpstream((request, response, upstream) => {
    const error = (status: number, type: string, headers: Record<string, string> = {}) =>
      sendJson(response, status, { type: "error", error: { type, message: `${type} from fake upstream` } }, headers);
    switch (upstream.scenario) {
      case "unauthorized":
        return error(401, "authentication_error");
      case "rate-limited":
        return error(429, "rate_limit_error", { "retry-after": "7" });
      case "server-error":
        return error(500, "api_error");
      case "cut":
        return cutAfter(response, messageStart);
      case "stall":
        // A JSON call gets nothing at all; a stream gets its first frame, then silence.
        if (request.body.stream === true) stallAfter(response, messageStart);
        return;
      default:
        return answer(request, response, upstream);
    }
  });
}
