import { type OpenAIResponsesWireUsage, usageFromOpenAIResponses } from "@conduit-ai/server-core/pricing";
import { MarkedEventLines, type ScannedUsage, type UsageScanner } from "../../relay/body-tap.js";

interface CompletedEvent {
  type?: string;
  response?: {
    model?: string;
    usage?: OpenAIResponsesWireUsage;
  };
}

/**
 * Reads the codex stream's `response.completed` event for its usage: cached input tokens taken
 * out of `input_tokens` (the Responses API counts them inside), reasoning tokens kept.
 */
export class CodexUsageScanner implements UsageScanner {
  private result: ScannedUsage | undefined;
  private readonly lines = new MarkedEventLines("response.completed", (data) => this.readEvent(data));

  push(chunk: Uint8Array): void {
    this.lines.push(chunk);
  }

  private readEvent(data: string): void {
    try {
      const event = JSON.parse(data) as CompletedEvent;
      const usage = event.response?.usage;
      if (event.type !== "response.completed" || !usage) return;
      this.result = { model: event.response?.model ?? "unknown", usage: usageFromOpenAIResponses(usage) };
    } catch {
      // A malformed event is the client's to see; usage is best effort.
    }
  }

  finish(): ScannedUsage | undefined {
    this.lines.flush();
    return this.result;
  }
}
