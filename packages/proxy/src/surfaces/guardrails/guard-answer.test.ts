import { createGuardrails } from "@conduit-ai/guardrails";
import { emptyUsage } from "@conduit-ai/server-core/pricing";
import { describe, expect, it } from "vitest";
import type { CallGuard } from "../../admission/call-guard.js";
import { type TapOutcome, tapBody } from "../../relay/body-tap.js";
import type { ProxyReply } from "../../relay/proxy-reply.js";
import { messagesUsageScanner } from "../../wire/anthropic-messages/usage-tap.js";
import { guardAnswer } from "./guard-answer.js";

const set = createGuardrails({
  rules: [
    { name: "pii", kind: "pii", action: "mask", on: "response" },
    { name: "secrets", kind: "secrets", action: "mask", on: "response" },
  ],
  default: ["pii", "secrets"],
}).select();
const recorded: string[] = [];
const guard = { set, context: {}, record: (hits) => recorded.push(...hits.map((hit) => hit.entity)) } as CallGuard;

const message = (texts: string[]) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-haiku-4-5",
  content: texts.map((text) => ({ type: "text", text })),
  stop_reason: "end_turn",
  usage: { input_tokens: 3, output_tokens: 5 },
});

/** A whole JSON answer as the relay hands it on: its bytes, and (`parsed`) its own parse of them. */
function jsonReply(body: unknown, parsed: boolean): ProxyReply {
  const bytes = Buffer.from(JSON.stringify(body));
  return {
    status: 200,
    headers: { "content-type": "application/json", "content-length": String(bytes.length) },
    body: bytes,
    ...(parsed ? { parsedBody: { value: JSON.parse(bytes.toString()) } } : {}),
  };
}

async function guardedReply(reply: ProxyReply): Promise<ProxyReply> {
  const answer = await guardAnswer(guard, { kind: "passthrough", reply, servedBy: "anthropic/claude-haiku-4-5" });
  if (answer.kind !== "passthrough") throw new Error("a passthrough stays one");
  return answer.reply;
}

describe("guardAnswer on a whole JSON passthrough", () => {
  it("sends an answer nothing matched as upstream's very bytes, whether the relay parsed it or not", async () => {
    for (const parsed of [true, false]) {
      const reply = jsonReply(message(["The quarterly report shows steady growth.", "with AWS and 3 regions"]), parsed);
      const sent = await guardedReply(reply);
      expect(Buffer.from(sent.body as Uint8Array).equals(reply.body as Buffer)).toBe(true);
      expect(sent.headers).toEqual(reply.headers);
    }
  });

  it("masks a match that is a whole text, starts it or ends it, and leaves the relay's parse as it was", async () => {
    for (const parsed of [true, false]) {
      recorded.length = 0;
      const texts = ["ada@example.com", "AKIAIOSFODNN7EXAMPLE is the key", "plain", "mail grace@example.org"];
      const reply = jsonReply(message(texts), parsed);
      const before = structuredClone(reply.parsedBody);
      const sent = await guardedReply(reply);
      const body = JSON.parse(Buffer.from(sent.body as Uint8Array).toString());
      expect(body).toEqual(message(["[EMAIL]", "[AWS_ACCESS_KEY] is the key", "plain", "mail [EMAIL]"]));
      expect(sent.headers["content-length"]).toBeUndefined();
      expect(recorded).toEqual(["email", "aws-access-key", "email"]);
      expect(reply.parsedBody).toEqual(before);
      expect(JSON.parse((reply.body as Buffer).toString())).toEqual(message(texts));
    }
  });

  it("masks a translated target's message in a copy, the original left as it was", async () => {
    const original = message(["call +44 20 7946 0958", "nothing here"]);
    const kept = structuredClone(original);
    const answer = await guardAnswer(guard, { kind: "message", message: original as never, servedBy: "anthropic/claude-haiku-4-5" });
    if (answer.kind !== "message") throw new Error("a message stays one");
    expect(answer.message.content).toEqual([
      { type: "text", text: "call [PHONE]" },
      { type: "text", text: "nothing here" },
    ]);
    expect(original).toEqual(kept);
    const unchanged = message(["nothing here"]);
    const same = await guardAnswer(guard, { kind: "message", message: unchanged as never, servedBy: "anthropic/claude-haiku-4-5" });
    expect(same.kind === "message" && same.message).toBe(unchanged);
  });
});

describe("guardAnswer on a streamed passthrough", () => {
  const frame = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const delta = (text: string) =>
    frame("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
  const stream = [
    frame("message_start", {
      type: "message_start",
      message: { model: "claude-haiku-4-5", usage: { input_tokens: 10, output_tokens: 1 } },
    }),
    frame("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    delta("plain words with no usage mark"),
    delta('a text that says "usage" in quotes'),
    frame("content_block_stop", { type: "content_block_stop", index: 0 }),
    frame("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 42 } }),
    frame("message_stop", { type: "message_stop" }),
  ].join("");

  /** The outcome the relay's tap reports for `chunks`, the body guarded or (`guarded` false) relayed as is; and the bytes sent. */
  async function tapped(chunks: Buffer[], guarded: boolean): Promise<{ outcomes: TapOutcome[]; sent: string; handedOver: boolean }> {
    const scanner = messagesUsageScanner("text/event-stream");
    const outcomes: TapOutcome[] = [];
    const body = tapBody(
      (async function* () {
        yield* chunks;
      })(),
      scanner,
      (outcome) => outcomes.push(outcome),
    );
    let reply: ProxyReply = {
      status: 200,
      headers: { "content-type": "text/event-stream" },
      body,
      usageEvents: (unfinished) => scanner.takeEvents?.(unfinished),
    };
    if (guarded) {
      reply = await guardedReply(reply);
      expect(reply.usageEvents).toBeUndefined();
    }
    const out: Buffer[] = [];
    for await (const chunk of reply.body as AsyncIterable<Uint8Array>) out.push(Buffer.from(chunk));
    // A reader handed over was given the events: the bytes were not searched again (a byte search refuses it).
    return { outcomes, sent: Buffer.concat(out).toString(), handedOver: scanner.takeEvents?.(() => {}) !== undefined };
  }

  const cut = (text: string, size: number) => {
    const bytes = Buffer.from(text);
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
    return chunks;
  };

  it("reads the relay's usage from the guard's parse of the events, wherever the chunks are cut", async () => {
    for (const size of [1, 7, 64, stream.length]) {
      const { outcomes, sent, handedOver } = await tapped(cut(stream, size), true);
      expect(sent).toBe(stream);
      expect(handedOver).toBe(true);
      expect(outcomes).toEqual([
        { completed: true, usage: { model: "claude-haiku-4-5", usage: { ...emptyUsage(), input: 10, output: 42 } } },
      ]);
    }
  });

  it("counts what a stream cut short reported as the byte search counts it, a data line without its blank line included", async () => {
    const deltaAt = stream.indexOf("event: message_delta");
    const dataEnd = stream.indexOf("\n", stream.indexOf("data: ", deltaAt)) + 1;
    for (const end of [deltaAt, deltaAt + 30, dataEnd - 5, dataEnd - 1, dataEnd, dataEnd + 1]) {
      for (const size of [7, 64, end]) {
        const chunks = cut(stream.slice(0, end), size);
        const guarded = await tapped(chunks, true);
        const relayed = await tapped(chunks, false);
        expect(relayed.handedOver).toBe(false);
        expect(guarded.outcomes).toEqual(relayed.outcomes);
        expect(guarded.sent).toContain("upstream_stream_error");
      }
    }
    // The case that matters: the message_delta's data line arrived whole, its frame's end did not.
    const unfinished = await tapped(cut(stream.slice(0, dataEnd), 64), true);
    expect(unfinished.outcomes[0]?.usage?.usage.output).toBe(42);
  });

  it("counts a stream with CRLF line ends as the byte search does, whole or cut", async () => {
    const crlf = stream.replaceAll("\n", "\r\n");
    const dataEnd = crlf.indexOf("\r\n", crlf.indexOf("data: ", crlf.indexOf("event: message_delta"))) + 2;
    for (const end of [crlf.length, dataEnd - 1, dataEnd]) {
      for (const size of [5, 64, end]) {
        const chunks = cut(crlf.slice(0, end), size);
        const guarded = await tapped(chunks, true);
        const relayed = await tapped(chunks, false);
        expect(guarded.outcomes).toEqual(relayed.outcomes);
        expect(guarded.outcomes[0]?.usage?.usage.input).toBe(10);
      }
    }
  });
});
