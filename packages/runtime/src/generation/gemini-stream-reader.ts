/**
 * Reads the chunks of a Gemini `streamGenerateContent?alt=sse` stream into the runtime's parts
 * the way `@ai-sdk/google`'s `doStream` reads them and ai-sdk-model-stream.ts passes them on:
 * text and thought blocks share one counter (`"0"`, `"1"`, …; thoughts are not passed on but
 * take a number), function calls become tool calls, the finish reason is unified, and usage
 * counts thoughts as output and cached content as cache reads. Kept apart from the engine so
 * parity with the package can be read in one place.
 */
import type { TokenUsage } from "@conduit-ai/server-core";
import { generateId } from "ai";
import type { GenerationPart } from "./generation-part.js";

interface GeminiPart {
  text?: string | null;
  thought?: boolean | null;
  thoughtSignature?: string | null;
  inlineData?: unknown;
  functionCall?: { id?: string | null; name?: string | null; args?: unknown } | null;
  executableCode?: { code?: string } | null;
  toolCall?: { id?: string | null; toolType?: string; args?: unknown } | null;
}

/** Gemini's usage counts (`usageMetadata`). */
export interface GeminiUsage {
  promptTokenCount?: number | null;
  candidatesTokenCount?: number | null;
  cachedContentTokenCount?: number | null;
  thoughtsTokenCount?: number | null;
}

/** One streamed `GenerateContentResponse`, or Google's error object. */
export interface GeminiChunk {
  candidates?: Array<{ content?: { parts?: GeminiPart[] | null } | null; finishReason?: string | null; continuationToken?: string }> | null;
  usageMetadata?: GeminiUsage | null;
  promptFeedback?: { blockReason?: string | null } | null;
  error?: { code?: number | null; message: string; status?: string | null } | null;
}

const FILTERED = new Set(["IMAGE_SAFETY", "RECITATION", "SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"]);

/** `@ai-sdk/google`'s unified finish reason. */
function finishReasonOf(reason: string, hasToolCalls: boolean): string {
  if (reason === "STOP") return hasToolCalls ? "tool-calls" : "stop";
  if (reason === "MAX_TOKENS" || reason === "CONTINUATION") return "length";
  if (FILTERED.has(reason)) return "content-filter";
  return reason === "MALFORMED_FUNCTION_CALL" ? "error" : "other";
}

function isBlocked(reason: string | null | undefined): reason is string {
  return reason != null && reason !== "" && reason !== "BLOCK_REASON_UNSPECIFIED" && reason !== "BLOCKED_REASON_UNSPECIFIED";
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The arguments as the AI SDK path yields them: its JSON text read back (`{}` when not an object). */
function argumentsOf(args: unknown): Record<string, unknown> {
  if (typeof args !== "string") return objectOf(args ?? {});
  try {
    return objectOf(JSON.parse(args === "" ? "{}" : args));
  } catch {
    return {};
  }
}

function addCount(a: number | null | undefined, b: number | null | undefined): number | undefined {
  return a == null && b == null ? undefined : (a ?? 0) + (b ?? 0);
}

/** Two requests' usage together (a continued answer). */
export function addGeminiUsage(a: GeminiUsage | undefined, b: GeminiUsage | undefined): GeminiUsage | undefined {
  if (a === undefined || b === undefined) return b ?? a;
  return {
    promptTokenCount: addCount(a.promptTokenCount, b.promptTokenCount),
    candidatesTokenCount: addCount(a.candidatesTokenCount, b.candidatesTokenCount),
    cachedContentTokenCount: addCount(a.cachedContentTokenCount, b.cachedContentTokenCount),
    thoughtsTokenCount: addCount(a.thoughtsTokenCount, b.thoughtsTokenCount),
  };
}

/** Gemini usage in the runtime's shape (thoughts are output tokens); details only when non-zero. */
export function fromGeminiUsage(usage: GeminiUsage | undefined): TokenUsage {
  if (usage === undefined) return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const inputTokens = usage.promptTokenCount ?? 0;
  const reasoningTokens = usage.thoughtsTokenCount ?? 0;
  const outputTokens = (usage.candidatesTokenCount ?? 0) + reasoningTokens;
  const cacheReadTokens = usage.cachedContentTokenCount ?? 0;
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    ...(cacheReadTokens ? { cacheReadTokens } : {}),
    ...(reasoningTokens ? { reasoningTokens } : {}),
  };
}

/** The state of one generation's chunks (across continued requests): open blocks, finish reason, usage. */
export class GeminiStreamReader {
  #blocks = 0;
  #text: string | undefined;
  #reasoning = false;
  #hasToolCalls = false;
  #blocked = false;
  #finishReason = "other";
  #usage: GeminiUsage | undefined;
  #continuedUsage: GeminiUsage | undefined;
  /** The token to continue with once this request's stream ends (`CONTINUATION`). */
  continuationToken: string | undefined;

  /** The parts of one chunk, pushed onto `parts`; an `error` chunk is for the caller (see `GeminiChunk.error`). */
  read(chunk: GeminiChunk, parts: GenerationPart[]): void {
    if (chunk.usageMetadata != null) this.#usage = chunk.usageMetadata;
    if (!this.#blocked && isBlocked(chunk.promptFeedback?.blockReason)) {
      this.#blocked = true;
      this.#finishReason = "content-filter";
    }
    const candidate = chunk.candidates?.[0];
    if (this.#blocked || candidate == null) return;
    if (candidate.finishReason === "CONTINUATION" && candidate.continuationToken != null)
      this.continuationToken = candidate.continuationToken;
    const content = candidate.content?.parts ?? [];
    for (const part of content) this.#readPart(part, parts);
    for (const part of content) {
      const call = part.functionCall;
      // Argument streaming (`partialArgs`, `willContinue`) is Vertex's only: the engine leaves Vertex to the package.
      if (call == null || call.name == null) continue;
      parts.push({ type: "tool-call", call: { id: call.id ?? generateId(), name: call.name, arguments: argumentsOf(call.args) } });
      this.#hasToolCalls = true;
    }
    if (candidate.finishReason === "CONTINUATION") {
      this.#continuedUsage = addGeminiUsage(this.#continuedUsage, this.#usage);
      this.#usage = undefined;
    }
    if (candidate.finishReason != null) this.#finishReason = finishReasonOf(candidate.finishReason, this.#hasToolCalls);
  }

  #readPart(part: GeminiPart, parts: GenerationPart[]): void {
    if (part.executableCode?.code) {
      parts.push({ type: "tool-call", call: { id: generateId(), name: "code_execution", arguments: objectOf(part.executableCode) } });
    } else if (part.text != null) {
      if (part.text.length === 0) {
        // The package passes a signature-only part on as an empty delta of the open text block.
        if (part.thoughtSignature && this.#text !== undefined) parts.push({ type: "text-delta", id: this.#text, delta: "" });
        return;
      }
      if (part.thought === true) {
        this.#endText(parts);
        if (!this.#reasoning) {
          this.#reasoning = true;
          this.#blocks++;
        }
        return;
      }
      this.#reasoning = false;
      if (this.#text === undefined) {
        this.#text = String(this.#blocks++);
        parts.push({ type: "text-start", id: this.#text });
      }
      parts.push({ type: "text-delta", id: this.#text, delta: part.text });
    } else if (part.inlineData !== undefined) {
      this.#endText(parts);
      this.#reasoning = false;
    } else if (part.toolCall) {
      const id = part.toolCall.id ?? generateId();
      parts.push({
        type: "tool-call",
        call: { id, name: `server:${part.toolCall.toolType}`, arguments: objectOf(part.toolCall.args ?? {}) },
      });
    }
  }

  #endText(parts: GenerationPart[]): void {
    if (this.#text === undefined) return;
    parts.push({ type: "text-end", id: this.#text });
    this.#text = undefined;
  }

  /** The parts that close the generation: the open text block, then `finish`. */
  finish(parts: GenerationPart[]): void {
    this.#endText(parts);
    parts.push({ type: "finish", reason: this.#finishReason, usage: fromGeminiUsage(addGeminiUsage(this.#continuedUsage, this.#usage)) });
  }
}
