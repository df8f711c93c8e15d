/**
 * Client-side helpers of the tests that check spend against what upstream reported: one streamed
 * `/v1/messages` call (optionally cut by its client after the first text delta), and the usage a
 * recorded fake-Anthropic answer reported in the bytes it sent.
 */

/** Tokens a Messages stream reported: `message_start`'s usage, updated by `message_delta`'s cumulative counts. */
export interface ReportedUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/**
 * One streamed `POST /v1/messages` with `key`; `cancel` leaves after the first text delta.
 * Resolves with the status and, when refused, the Anthropic error type.
 *
 * @example
 * const { status, errorType } = await streamedMessagesCall(url, key, body, false);
 */
export async function streamedMessagesCall(
  url: string,
  key: string,
  body: string,
  cancel: boolean,
): Promise<{ status: number; errorType?: string; message?: string }> {
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/messages`, {
    method: "POST",
    signal: controller.signal,
    headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body,
  });
  if (response.status !== 200) {
    const refusal = (await response.json()) as { error?: { type?: string; message?: string } };
    return {
      status: response.status,
      ...(refusal.error?.type ? { errorType: refusal.error.type } : {}),
      ...(refusal.error?.message ? { message: refusal.error.message } : {}),
    };
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let seen = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += Buffer.from(value).toString();
    if (cancel && seen.includes("text_delta")) {
      controller.abort();
      break;
    }
  }
  return { status: 200 };
}

/**
 * What a Messages stream reported in the bytes upstream sent (a stream cut short: what it had sent).
 *
 * @example
 * const usage = reportedUsage(fake.exchanges.at(-1)!.sent);
 */
export function reportedUsage(sent: Buffer): ReportedUsage {
  const wire = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  for (const line of sent.toString().split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const event = JSON.parse(line.slice(6)) as { type: string; message?: { usage?: object }; usage?: object };
    Object.assign(wire, event.type === "message_start" ? event.message?.usage : event.type === "message_delta" ? event.usage : {});
  }
  return {
    inputTokens: wire.input_tokens,
    outputTokens: wire.output_tokens,
    cacheReadTokens: wire.cache_read_input_tokens,
    cacheWriteTokens: wire.cache_creation_input_tokens,
  };
}
