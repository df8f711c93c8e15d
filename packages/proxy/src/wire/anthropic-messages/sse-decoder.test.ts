import { describe, expect, it } from "vitest";
import type { MessagesStreamEvent } from "./messages-answer.js";
import { decodeMessagesStream } from "./sse-decoder.js";

const frame = (event: Record<string, unknown> & { type: string }) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
const START = frame({ type: "message_start", message: { id: "msg_1", model: "claude-haiku-4-5", usage: { input_tokens: 3 } } });
const DELTA = frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } });
const STOP = frame({ type: "message_stop" });

/** A body that yields `chunks` one read each, then fails with `failure` (if any), and records whether it was returned. */
function bodyOf(chunks: string[], failure?: Error) {
  const state = { returned: false, reads: 0 };
  const body: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const chunk = chunks[state.reads++];
        if (chunk !== undefined) return { done: false, value: new TextEncoder().encode(chunk) };
        if (failure) throw failure;
        return { done: true, value: undefined };
      },
      return: async () => {
        state.returned = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return { body, state };
}

async function batchesOf(body: AsyncIterable<Uint8Array>): Promise<MessagesStreamEvent[][]> {
  const batches: MessagesStreamEvent[][] = [];
  for await (const batch of decodeMessagesStream(body)) batches.push(batch);
  return batches;
}

const types = (batches: MessagesStreamEvent[][]) => batches.map((batch) => batch.map((event) => event.type));
const lastError = (batches: MessagesStreamEvent[][]) => (batches.at(-1)!.at(-1) as Extract<MessagesStreamEvent, { type: "error" }>).error;

describe("decodeMessagesStream", () => {
  it("decodes once, one batch per read, events cut across reads joined, and stops at message_stop", async () => {
    const cut = DELTA.length - 7;
    const { body, state } = bodyOf([START + DELTA.slice(0, cut), DELTA.slice(cut) + STOP, frame({ type: "ping" })]);
    const batches = await batchesOf(body);
    expect(types(batches)).toEqual([["message_start"], ["content_block_delta", "message_stop"]]);
    expect(batches[1]![0]).toMatchObject({ index: 0, delta: { text: "Hi" } });
    // Not read past message_stop, and the body returned (the upstream request ended).
    expect(state.reads).toBe(2);
    expect(state.returned).toBe(true);
  });

  it("ends a stream that stops before message_stop with an error event", async () => {
    const batches = await batchesOf(bodyOf([START, DELTA]).body);
    expect(types(batches)).toEqual([["message_start"], ["content_block_delta"], ["error"]]);
    expect(lastError(batches)).toEqual({ type: "upstream_stream_error", message: "The upstream stream ended before the message finished" });
  });

  it("ends a stream whose read fails with an error event, and returns the body", async () => {
    const { body, state } = bodyOf([START], new Error("socket hang up"));
    const batches = await batchesOf(body);
    expect(types(batches)).toEqual([["message_start"], ["error"]]);
    expect(lastError(batches).message).toBe("The upstream stream failed before it finished");
    expect(state.returned).toBe(true);
  });

  it("ends at a malformed event (not JSON, or not an object) with the events read before it", async () => {
    for (const bad of ["event: content_block_delta\ndata: {nope\n\n", "data: 42\n\n"]) {
      const batches = await batchesOf(bodyOf([START + bad + DELTA]).body);
      expect(types(batches)).toEqual([["message_start", "error"]]);
      expect(lastError(batches).message).toBe("The upstream sent a malformed stream event");
    }
  });

  it("passes upstream's error event on and ends there", async () => {
    const overloaded = frame({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    const batches = await batchesOf(bodyOf([START + overloaded + DELTA]).body);
    expect(types(batches)).toEqual([["message_start", "error"]]);
    expect(lastError(batches)).toEqual({ type: "overloaded_error", message: "Overloaded" });
  });

  it("takes the SSE event name when the data names no type", async () => {
    const batches = await batchesOf(bodyOf(['event: message_stop\ndata: {"note":1}\n\n']).body);
    expect(batches).toEqual([[{ note: 1, type: "message_stop" }]]);
  });

  it("returns the body when its consumer leaves early (the client gone)", async () => {
    const { body, state } = bodyOf([START, DELTA, DELTA, STOP]);
    for await (const _batch of decodeMessagesStream(body)) break;
    expect(state.returned).toBe(true);
    expect(state.reads).toBe(1);
  });
});
