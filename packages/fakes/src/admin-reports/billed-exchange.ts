import type { RecordedExchange } from "../anthropic/fake-anthropic.js";
import type { BilledUsage } from "./report-buckets.js";

interface MessagesUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
}

/** The usage an answer carried: a JSON message's, or a stream's `message_start` with its last `message_delta`'s output. */
function usageOf(sent: string): { model: string; usage: MessagesUsage } | undefined {
  const trimmed = sent.trimStart();
  if (trimmed.startsWith("{")) {
    const body = JSON.parse(trimmed) as { model?: string; usage?: MessagesUsage };
    return body.usage ? { model: body.model ?? "", usage: body.usage } : undefined;
  }
  let found: { model: string; usage: MessagesUsage } | undefined;
  for (const line of sent.split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const data = JSON.parse(line.slice(6)) as { type?: string; message?: { model?: string; usage?: MessagesUsage }; usage?: MessagesUsage };
    if (data.type === "message_start" && data.message?.usage) found = { model: data.message.model ?? "", usage: { ...data.message.usage } };
    if (data.type === "message_delta" && found && data.usage?.output_tokens !== undefined)
      found.usage.output_tokens = data.usage.output_tokens;
  }
  return found;
}

/**
 * What Anthropic bills for one answered `/v1/messages` exchange of the fake: the usage it sent
 * (JSON, or a stream's `message_start` and last `message_delta`), priced by `price`. Undefined for
 * an answer that carried none (an error, a count).
 *
 * @example
 * for (const exchange of anthropic.exchanges) { const billed = billedAnthropicExchange(exchange, { time, price }); if (billed) reports.bill(billed); }
 */
export function billedAnthropicExchange(
  exchange: RecordedExchange,
  options: { time: string; apiKeyId?: string; price: (model: string, usage: Omit<BilledUsage, "usd" | "time" | "model">) => number },
): BilledUsage | undefined {
  if (exchange.status !== 200) return undefined;
  const found = usageOf(exchange.sent.toString("utf8"));
  if (!found) return undefined;
  const { usage } = found;
  const write1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const write5m = usage.cache_creation?.ephemeral_5m_input_tokens ?? (usage.cache_creation_input_tokens ?? 0) - write1h;
  const tokens = {
    ...(options.apiKeyId ? { apiKeyId: options.apiKeyId } : {}),
    input: usage.input_tokens ?? 0,
    output: usage.output_tokens ?? 0,
    cacheRead: usage.cache_read_input_tokens ?? 0,
    cacheWrite5m: Math.max(0, write5m),
    cacheWrite1h: write1h,
  };
  return { time: options.time, model: found.model, ...tokens, usd: options.price(found.model, tokens) };
}
