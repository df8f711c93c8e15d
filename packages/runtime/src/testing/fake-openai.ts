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

const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

function hasToolMessage(request: RecordedRequest): boolean {
  return (request.body.messages as Array<{ role: string }>).some((message) => message.role === "tool");
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}): string {
  const body = {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-4o-mini",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

function answerText(request: RecordedRequest): string {
  const messages = request.body.messages as Array<{ role: string; content: string }>;
  const tool = messages.find((message) => message.role === "tool");
  const conversation = messages.filter((message) => message.role !== "system");
  return tool ? `The tool said ${tool.content}` : `Upstream heard ${conversation.length} messages`;
}

function answer(request: RecordedRequest, response: ServerResponse, upstream: FakeUpstream): void {
  // `tool`: calls the registry's calculator; `first-tool`: calls the first tool the request declares (a client's own).
  const wantsTool = (upstream.scenario === "tool" || upstream.scenario === "first-tool") && !hasToolMessage(request);
  const declared = (request.body.tools as Array<{ function: { name: string } }> | undefined)?.[0]?.function.name;
  const name = upstream.scenario === "first-tool" ? (declared ?? "none") : "calculator";
  const toolCall = { id: "call_1", type: "function", function: { name, arguments: JSON.stringify({ expression: "6*7" }) } };
  if (request.body.stream !== true) {
    const message = wantsTool
      ? { role: "assistant", content: null, tool_calls: [toolCall] }
      : { role: "assistant", content: answerText(request) };
    sendJson(response, 200, {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: request.body.model,
      choices: [{ index: 0, message, finish_reason: wantsTool ? "tool_calls" : "stop" }],
      usage,
    });
    return;
  }
  startEventStream(response);
  if (wantsTool) {
    response.write(chunk({ role: "assistant", tool_calls: [{ index: 0, ...toolCall }] }));
    response.write(chunk({}, "tool_calls"));
  } else {
    response.write(chunk({ role: "assistant", content: "" }));
    for (const word of answerText(request).split(/(?<= )/)) response.write(chunk({ content: word }));
    response.write(chunk({}, "stop"));
  }
  response.write(
    `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [], usage })}\n\n`,
  );
  response.end("data: [DONE]\n\n");
}

/** A loopback server speaking the OpenAI Chat Completions wire format (JSON and SSE). */
export function startFakeOpenAI(): Promise<FakeUpstream> {
  return startFakeUpstream((request, response, upstream) => {
    const error = (status: number, type: string, headers: Record<string, string> = {}) =>
      sendJson(response, status, { error: { message: `${type} from fake upstream`, type, code: type } }, headers);
    if (request.path.endsWith("/embeddings")) {
      const inputs = request.body.input as string[];
      sendJson(response, 200, {
        object: "list",
        data: inputs.map((_, index) => ({ object: "embedding", index, embedding: [index, 1, 0.5] })),
        model: request.body.model,
        usage: { prompt_tokens: 3, total_tokens: 3 },
      });
      return;
    }
    switch (upstream.scenario) {
      case "unauthorized":
        return error(401, "invalid_api_key");
      case "rate-limited":
        return error(429, "rate_limit_exceeded", { "retry-after": "7" });
      case "server-error":
        return error(500, "server_error");
      case "cut":
        return cutAfter(response, chunk({ role: "assistant", content: "partial " }));
      case "stall":
        // A JSON call gets nothing at all; a stream gets its first frame, then silence.
        if (request.body.stream === true) stallAfter(response, chunk({ role: "assistant", content: "partial " }));
        return;
      default:
        return answer(request, response, upstream);
    }
  });
}
