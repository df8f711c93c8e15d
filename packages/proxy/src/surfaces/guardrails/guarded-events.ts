import { type GuardrailHit, type StreamScanner, estimateTokens, violationMessage } from "@conduit-ai/guardrails";
import type { CallGuard } from "../../admission/call-guard.js";
import type { MessagesDelta, MessagesStreamEvent } from "../../wire/anthropic-messages/messages-answer.js";

/** The error event a blocked stream ends with; each surface's encoder writes it in its vendor's form. */
export function guardrailErrorEvent(hit: GuardrailHit & { reason?: string }): MessagesStreamEvent {
  return { type: "error", error: { type: "guardrail_violation", message: violationMessage(hit) } };
}

/** The field of a delta that carries model text (tool input JSON and thinking included); signatures are not text. */
function textFieldOf(delta: MessagesDelta): "text" | "partial_json" | "thinking" | undefined {
  switch (delta.type) {
    case "text_delta":
      return "text";
    case "input_json_delta":
      return "partial_json";
    case "thinking_delta":
      return "thinking";
    default:
      return undefined;
  }
}

interface Channel {
  scanner: StreamScanner | undefined;
  field: "text" | "partial_json" | "thinking";
  deltaType: string;
  reported: number;
}

/**
 * A Messages event stream with the response guardrails applied as it passes: each content
 * block's text runs through its own scanner (held back by at most the window), masked text is
 * written back into the same delta shape, the rest released at the block's stop. A block ends
 * the stream at once with an `error` event (`guardrail_violation`), and returning cancels upstream.
 * `maxOutputTokens` counts released text; a response webhook is asked once the answer is complete.
 */
export async function* guardedEvents(
  events: AsyncIterable<MessagesStreamEvent[]>,
  guard: CallGuard,
): AsyncGenerator<MessagesStreamEvent[]> {
  const set = guard.set;
  const channels = new Map<number, Channel>();
  const limit = set.outputLimit();
  let limitReported = false;
  let released = 0;
  const answer: string[] | undefined = set.asksAboutAnswers ? [] : undefined;

  const report = (channel: Channel) => {
    const hits = channel.scanner?.hits ?? [];
    if (hits.length > channel.reported) guard.record(hits.slice(channel.reported));
    channel.reported = hits.length;
  };
  /** Counts released text; the hit when it passed `maxOutputTokens` (a `log` rule reports once and lets it go on). */
  const overLimit = (text: string): GuardrailHit | undefined => {
    released += text.length;
    answer?.push(text);
    if (!limit || limitReported || estimateTokens(released) <= limit.maxTokens) return undefined;
    limitReported = true;
    const hit: GuardrailHit = {
      guardrail: limit.name,
      kind: "size",
      action: limit.action === "log" ? "log" : "block",
      direction: "response",
      entity: "max-output-tokens",
    };
    guard.record([hit]);
    return hit.action === "block" ? hit : undefined;
  };
  const deltaEvent = (index: number, channel: Channel, text: string): MessagesStreamEvent => ({
    type: "content_block_delta",
    index,
    delta: { type: channel.deltaType, [channel.field]: text } as MessagesDelta,
  });

  for await (const batch of events) {
    const out: MessagesStreamEvent[] = [];
    for (const event of batch) {
      if (event.type === "content_block_delta") {
        const field = textFieldOf(event.delta);
        const text = field ? (event.delta as Record<string, unknown>)[field] : undefined;
        if (!field || typeof text !== "string") {
          out.push(event);
          continue;
        }
        let channel = channels.get(event.index);
        if (!channel) {
          channel = { scanner: set.streamScanner(), field, deltaType: event.delta.type, reported: 0 };
          channels.set(event.index, channel);
        }
        const step = channel.scanner ? channel.scanner.push(text) : { text };
        report(channel);
        const blocked = step.block ?? (step.text ? overLimit(step.text) : undefined);
        if (blocked) {
          yield [...out, guardrailErrorEvent(blocked)];
          return;
        }
        if (step.text) out.push(step.text === text ? event : deltaEvent(event.index, channel, step.text));
        continue;
      }
      if (event.type === "content_block_stop") {
        const channel = channels.get(event.index);
        if (channel?.scanner) {
          const step = channel.scanner.flush();
          report(channel);
          const blocked = step.block ?? (step.text ? overLimit(step.text) : undefined);
          if (blocked) {
            yield [...out, guardrailErrorEvent(blocked)];
            return;
          }
          if (step.text) out.push(deltaEvent(event.index, channel, step.text));
        }
        out.push(event);
        continue;
      }
      if (event.type === "message_stop" && answer) {
        const outcome = await set.checkTexts("response", [{ text: answer.join(""), replace: () => {} }], guard.context);
        guard.record(outcome.hits.filter((hit) => hit.kind === "webhook"));
        if (outcome.block) {
          yield [...out, guardrailErrorEvent(outcome.block)];
          return;
        }
      }
      out.push(event);
    }
    if (out.length > 0) yield out;
  }
}
