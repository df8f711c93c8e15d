import { describe, expect, it } from "vitest";
import { jsonEventFrame } from "./event-stream.js";
import { SSE_DONE } from "./chat-completions/chat-encoder.js";
import { ResponsesSse } from "./responses/responses-sse.js";

// The bytes each vendor's SDK parses, now produced by server-core's one SSE framer.
describe("the proxy's event-stream frames", () => {
  it("frames a chat completions chunk and the last frame as OpenAI sends them", () => {
    expect(jsonEventFrame({ id: "chatcmpl-1", choices: [] })).toBe('data: {"id":"chatcmpl-1","choices":[]}\n\n');
    expect(SSE_DONE).toBe("data: [DONE]\n\n");
  });

  it("frames a Responses event with its type as the event name and a running sequence number", () => {
    const sse = new ResponsesSse();
    expect(sse.frame([{ type: "response.created", response: { id: "resp_1" } } as never])).toBe(
      'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1"},"sequence_number":0}\n\n',
    );
    expect(sse.frame([{ type: "response.output_text.delta", delta: "a\nb" } as never])).toBe(
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"a\\nb","sequence_number":1}\n\n',
    );
  });

  it("frames a Messages API event as an event/data pair", () => {
    expect(jsonEventFrame({ type: "message_stop" }, "message_stop")).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
  });
});
