import { createParser } from "eventsource-parser";
import type { TokenUsage } from "../prices.js";

interface CompletedEvent {
  type?: string;
  response?: {
    model?: string;
    usage?: { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number } };
  };
}

/**
 * Upstream's body unchanged (the same chunks, in order) while a decoded copy is read for the
 * `response.completed` event's usage; `onEnd` runs once when the body ended, failed or was cancelled.
 */
export function tapCodexBody(
  body: ReadableStream<Uint8Array>,
  onUsage: (model: string, usage: TokenUsage) => void,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent(event) {
      if (!event.data.includes("response.completed")) return;
      try {
        const data = JSON.parse(event.data) as CompletedEvent;
        const usage = data.response?.usage;
        if (data.type !== "response.completed" || !usage) return;
        const cached = usage.input_tokens_details?.cached_tokens ?? 0;
        onUsage(data.response?.model ?? "unknown", {
          inputTokens: (usage.input_tokens ?? 0) - cached,
          outputTokens: usage.output_tokens ?? 0,
          cacheReadTokens: cached,
          cacheCreationTokens: 0,
        });
      } catch {
        // A malformed event is the client's to see; usage is best effort.
      }
    },
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            end();
            controller.close();
            return;
          }
          parser.feed(decoder.decode(next.value, { stream: true }));
          controller.enqueue(next.value);
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      async cancel(reason) {
        end();
        await reader.cancel(reason).catch(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
