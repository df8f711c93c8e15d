import type { ModelTurn } from "../model-turn.js";
import type { RecordedRequest } from "../fake-server.js";
import { type VendorCall, type VendorFailure, turnUsage } from "../vendor-fake.js";
import { bedrockEvent } from "./event-stream.js";

/** Bedrock's Converse API wire shapes: the `converse` body, `ConverseStream` events, errors. */

type ConverseBlock = { text?: string; toolUse?: unknown; toolResult?: { content?: Array<{ text?: string; json?: unknown }> } };

const ERRORS: Record<VendorFailure, [number, string]> = {
  unauthorized: [403, "UnrecognizedClientException"],
  forbidden: [403, "AccessDeniedException"],
  "rate-limited": [429, "ThrottlingException"],
  "server-error": [500, "InternalServerException"],
  "not-found": [404, "ResourceNotFoundException"],
  "bad-request": [400, "ValidationException"],
};

/** AWS's JSON error: the message in the body, the exception's name in `x-amzn-ErrorType`. */
export function converseError(failure: VendorFailure, message: string) {
  const [status, type] = ERRORS[failure];
  return { status, body: { message }, headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` } };
}

/** A Converse request's turns in the neutral shape (a `toolResult` block → a tool message). */
function conversation(body: Record<string, unknown>): Record<string, unknown> {
  const messages = ((body.messages ?? []) as Array<{ role: string; content: ConverseBlock[] }>).map((message) => {
    const result = message.content?.find((block) => block.toolResult)?.toolResult;
    if (result) return { role: "tool", content: result.content?.map((part) => part.text ?? JSON.stringify(part.json)).join("") ?? "" };
    return { role: message.role, content: message.content?.map((block) => block.text ?? "").join("") ?? "" };
  });
  const tools = ((body.toolConfig as { tools?: Array<{ toolSpec?: { name: string } }> } | undefined)?.tools ?? []).map((tool) => ({
    name: tool.toolSpec?.name,
  }));
  return { messages, tools };
}

/** `POST /model/{modelId}/converse`, `/converse-stream`, and `/invoke` (Titan embeddings). */
export function converseCall(request: RecordedRequest): VendorCall | { failure: VendorFailure; message: string } {
  const match = /^\/model\/([^/]+)\/(converse|converse-stream|invoke)$/.exec(request.path);
  if (request.method !== "POST" || !match) return { failure: "not-found", message: `no route ${request.method} ${request.path}` };
  const model = decodeURIComponent(match[1] ?? "");
  if (match[2] === "invoke") return { operation: "embed", model, conversation: {} };
  return { operation: match[2] === "converse" ? "generate" : "stream", model, conversation: conversation(request.body) };
}

function usage(turn: ModelTurn) {
  const counts = turnUsage(turn);
  return {
    inputTokens: counts.input,
    outputTokens: counts.output,
    totalTokens: counts.input + counts.output,
    ...(counts.cacheRead ? { cacheReadInputTokens: counts.cacheRead } : {}),
    ...(counts.cacheWrite ? { cacheWriteInputTokens: counts.cacheWrite } : {}),
  };
}

/** The `converse` answer of a turn. */
export function converseBody(turn: ModelTurn): unknown {
  const call = turn.toolCall;
  const content = call
    ? [{ toolUse: { toolUseId: call.id ?? "tooluse_1", name: call.name, input: call.input } }]
    : [{ text: (turn.text ?? []).join("") }];
  return {
    output: { message: { role: "assistant", content } },
    stopReason: call ? "tool_use" : "end_turn",
    usage: usage(turn),
    metrics: { latencyMs: 42 },
  };
}

/** The `ConverseStream` events of a turn, one event-stream message each. */
export function converseFrames(turn: ModelTurn): Buffer[][] {
  const groups: Buffer[][] = [[bedrockEvent("messageStart", { role: "assistant" })]];
  const call = turn.toolCall;
  if (call) {
    const json = JSON.stringify(call.input);
    groups.push([
      bedrockEvent("contentBlockStart", {
        contentBlockIndex: 0,
        start: { toolUse: { toolUseId: call.id ?? "tooluse_1", name: call.name } },
      }),
      bedrockEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { toolUse: { input: json.slice(0, 6) } } }),
      bedrockEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { toolUse: { input: json.slice(6) } } }),
    ]);
  } else {
    groups[0]?.push(
      ...(turn.text ?? []).slice(0, 1).map((text) => bedrockEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { text } })),
    );
    for (const text of (turn.text ?? []).slice(1))
      groups.push([bedrockEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { text } })]);
  }
  if (turn.cut) return groups;
  groups.push([
    bedrockEvent("contentBlockStop", { contentBlockIndex: 0 }),
    bedrockEvent("messageStop", { stopReason: call ? "tool_use" : "end_turn" }),
    bedrockEvent("metadata", { usage: usage(turn), metrics: { latencyMs: 42 } }),
  ]);
  return groups;
}
