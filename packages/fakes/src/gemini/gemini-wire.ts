import type { ModelTurn } from "../model-turn.js";
import type { RecordedRequest } from "../fake-server.js";
import { type VendorCall, type VendorFailure, turnUsage } from "../vendor-fake.js";

/** Gemini's `generateContent` wire shapes (the Gemini API and Vertex AI's Google models speak the same). */

type GeminiPart = { text?: string; functionCall?: { name: string }; functionResponse?: { name: string; response: unknown } };
type GeminiContent = { role?: string; parts?: GeminiPart[] };

const ERROR_STATUS: Record<VendorFailure, [number, string]> = {
  unauthorized: [401, "UNAUTHENTICATED"],
  forbidden: [403, "PERMISSION_DENIED"],
  "rate-limited": [429, "RESOURCE_EXHAUSTED"],
  "server-error": [500, "INTERNAL"],
  "not-found": [404, "NOT_FOUND"],
  "bad-request": [400, "INVALID_ARGUMENT"],
};

/** Google's error body (`{ error: { code, message, status } }`). */
export function geminiError(failure: VendorFailure, message: string) {
  const [status, name] = ERROR_STATUS[failure];
  return { status, body: { error: { code: status, message, status: name } } };
}

/** A Gemini request's turns in the neutral shape: `model` → assistant, a `functionResponse` → a tool message. */
export function geminiConversation(body: Record<string, unknown>): Record<string, unknown> {
  const contents = (body.contents ?? []) as GeminiContent[];
  const messages = contents.map((content) => {
    const response = content.parts?.find((part) => part.functionResponse)?.functionResponse;
    if (response) return { role: "tool", content: JSON.stringify(response.response) };
    return {
      role: content.role === "model" ? "assistant" : "user",
      content: (content.parts ?? []).map((part) => part.text ?? "").join(""),
    };
  });
  const declarations = ((body.tools ?? []) as Array<{ functionDeclarations?: Array<{ name: string }> }>).flatMap(
    (tool) => tool.functionDeclarations ?? [],
  );
  return { messages, tools: declarations.map((declaration) => ({ name: declaration.name })) };
}

/** The model and method of a `…/models/{model}:{method}` path, as a call (`alt=sse` streams). */
export function geminiCall(request: RecordedRequest): VendorCall | { failure: VendorFailure; message: string } {
  const match = /\/models\/([^/:?]+):(\w+)(?:\?|$)/.exec(request.path);
  if (request.method !== "POST" || !match) return { failure: "not-found", message: `no route ${request.method} ${request.path}` };
  const [, model = "", method] = match;
  if (method === "generateContent") return { operation: "generate", model, conversation: geminiConversation(request.body) };
  if (method === "streamGenerateContent") {
    if (!/[?&]alt=sse(&|$)/.test(request.path)) return { failure: "bad-request", message: "this fake streams with alt=sse only" };
    return { operation: "stream", model, conversation: geminiConversation(request.body) };
  }
  if (method === "embedContent" || method === "batchEmbedContents" || method === "predict")
    return { operation: "embed", model, conversation: {} };
  return { failure: "not-found", message: `unknown method ${method}` };
}

function usageMetadata(turn: ModelTurn) {
  const usage = turnUsage(turn);
  const thoughts = usage.reasoning ?? 0;
  return {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output - thoughts,
    totalTokenCount: usage.input + usage.output,
    ...(usage.cacheRead ? { cachedContentTokenCount: usage.cacheRead } : {}),
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
  };
}

function response(parts: GeminiPart[] | Array<Record<string, unknown>>, model: string, finishReason?: string, usage?: unknown) {
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    ...(usage ? { usageMetadata: usage } : {}),
    modelVersion: model,
    responseId: "fake-gemini-response",
  };
}

function callPart(turn: ModelTurn) {
  return turn.toolCall ? { functionCall: { name: turn.toolCall.name, args: turn.toolCall.input } } : undefined;
}

/** The `generateContent` answer of a turn. */
export function geminiBody(turn: ModelTurn, call: VendorCall): unknown {
  const functionCall = callPart(turn);
  return response(functionCall ? [functionCall] : [{ text: (turn.text ?? []).join("") }], call.model, "STOP", usageMetadata(turn));
}

/** `streamGenerateContent?alt=sse`: one response per piece (`data: …\r\n\r\n`), the last with the finish reason and usage. */
export function geminiFrames(turn: ModelTurn, call: VendorCall): string[][] {
  const frame = (body: unknown) => `data: ${JSON.stringify(body)}\r\n\r\n`;
  const functionCall = callPart(turn);
  const pieces = functionCall ? [] : (turn.text ?? []);
  const groups = pieces.map((text) => [frame(response([{ text }], call.model))]);
  if (turn.cut) return groups;
  groups.push([frame(response(functionCall ? [functionCall] : [{ text: "" }], call.model, "STOP", usageMetadata(turn)))]);
  return groups;
}

/** A small vector per text, deterministic. */
export function vectorOf(index: number): number[] {
  return [index, 1, 0.5];
}

/** `embedContent` and `batchEmbedContents` answers. */
export function geminiEmbeddings(request: RecordedRequest): unknown {
  const requests = request.body.requests as unknown[] | undefined;
  if (requests) return { embeddings: requests.map((_, index) => ({ values: vectorOf(index) })) };
  return { embedding: { values: vectorOf(0) } };
}
