import type { FakeAnthropic } from "@conduit-ai/fakes";

/**
 * A `SendMessages` that forwards to a fake Messages API with a fixed key (what the pool does with
 * a real account), for route tests without a pool.
 *
 * @example
 * const route = createChatCompletionsRoute({ runtime, isClientAllowed, sendMessages: forwardTo(fake) });
 */
export function forwardTo(fake: FakeAnthropic) {
  return (body: Uint8Array, init: { headers: Record<string, string>; signal: AbortSignal }) =>
    fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      body: body as Uint8Array<ArrayBuffer>,
      headers: { ...init.headers, "x-api-key": "sk-ant-test" },
      signal: init.signal,
    });
}
