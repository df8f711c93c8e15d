import { MarkedEventLines, type ScannedUsage, type UsageScanner } from "../../relay/body-tap.js";

interface CompletedEvent {
  type?: string;
  response?: {
    model?: string;
    usage?: { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number } };
  };
}

/**
 * Reads the codex stream's `response.completed` event for its usage (cached input tokens
 * reported apart, as the Responses API counts them inside `input_tokens`).
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
      const cached = usage.input_tokens_details?.cached_tokens ?? 0;
      this.result = {
        model: event.response?.model ?? "unknown",
        usage: {
          inputTokens: (usage.input_tokens ?? 0) - cached,
          outputTokens: usage.output_tokens ?? 0,
          cacheReadTokens: cached,
          cacheCreationTokens: 0,
        },
      };
    } catch {
      // A malformed event is the client's to see; usage is best effort.
    }
  }

  finish(): ScannedUsage | undefined {
    this.lines.flush();
    return this.result;
  }
}
