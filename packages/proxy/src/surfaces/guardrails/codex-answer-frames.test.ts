import { type GuardrailHit, createGuardrails } from "@conduit-ai/guardrails";
import { describe, expect, it } from "vitest";
import type { CallGuard } from "../../admission/call-guard.js";
import { codexAnswerStream } from "@conduit-ai/fakes";
import { guardedCodexBytes } from "./codex-answer-frames.js";

const EMAIL = "ada@example.com";
const at = { item_id: "msg_1", output_index: 0, content_index: 0 };

/** A codex answer streaming `deltas` as one output text, the whole-text events after them. */
function answer(deltas: string[]): string {
  const text = deltas.join("");
  const part = { type: "output_text", text, annotations: [] };
  const message = { id: "msg_1", type: "message", role: "assistant", content: [part] };
  const events = [
    { type: "response.created", response: { id: "resp_1", status: "in_progress", output: [] } },
    ...deltas.map((delta) => ({ type: "response.output_text.delta", ...at, delta })),
    { type: "response.output_text.done", ...at, text },
    { type: "response.content_part.done", ...at, part },
    { type: "response.output_item.done", output_index: 0, item: message },
    { type: "response.completed", response: { id: "resp_1", status: "completed", output: [message] } },
  ];
  return events.map((event, index) => `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`).join("");
}

function guardOf(action: "mask" | "block", hits: GuardrailHit[]): CallGuard {
  const set = createGuardrails({ rules: [{ name: "pii", kind: "pii", on: "response", action }], default: ["pii"] }).select();
  if (!set) throw new Error("no set");
  return { set, context: {}, record: (found) => void hits.push(...found) };
}

/** The guarded stream's events, upstream's bytes sent in chunks of `size` bytes. */
async function eventsOf(text: string, guard: CallGuard, size: number): Promise<Array<Record<string, unknown>>> {
  const bytes = Buffer.from(text);
  const chunks = (async function* () {
    for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
  })();
  let out = "";
  for await (const chunk of guardedCodexBytes(chunks, guard)) out += Buffer.from(chunk).toString("utf8");
  expect(out.endsWith("\n\n")).toBe(true);
  return out
    .trim()
    .split("\n\n")
    .map((frame) =>
      JSON.parse(
        frame
          .split("\n")
          .find((line) => line.startsWith("data: "))
          ?.slice(6) ?? "null",
      ),
    );
}

describe("guardedCodexBytes", () => {
  it("masks an email split at every offset and chunked at every size; the whole-text events carry the mask", async () => {
    const text = `héllo ✓ ${EMAIL} done`;
    for (let offset = 1; offset < text.length; offset++)
      for (const size of [1, 7, 4096]) {
        const hits: GuardrailHit[] = [];
        const events = await eventsOf(answer([text.slice(0, offset), text.slice(offset)]), guardOf("mask", hits), size);
        const deltas = events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta);
        expect(deltas.join(""), `offset ${offset}, chunks of ${size}`).toBe("héllo ✓ [EMAIL] done");
        expect(JSON.stringify(events)).not.toContain(EMAIL);
        expect(events.find((event) => event.type === "response.output_text.done")?.text).toBe("héllo ✓ [EMAIL] done");
        expect(JSON.stringify(events.at(-1))).toContain("héllo ✓ [EMAIL] done");
        expect(hits).toEqual([expect.objectContaining({ guardrail: "pii", action: "mask", entity: "email" })]);
      }
  });

  it("passes unmatched deltas as upstream's own bytes", async () => {
    const text = answer(["nothing ", "to see"]);
    let out = "";
    for await (const chunk of guardedCodexBytes([Buffer.from(text)] as unknown as AsyncIterable<Uint8Array>, guardOf("mask", [])))
      out += Buffer.from(chunk).toString("utf8");
    expect(out).toBe(text);
  });

  it("ends a blocked stream with response.failed and none of the match", async () => {
    const events = await eventsOf(answer(["write to ada@exa", "mple.com now"]), guardOf("block", []), 16);
    expect(events.at(-1)).toMatchObject({
      type: "response.failed",
      response: { id: "resp_1", status: "failed", error: { code: "guardrail_violation" } },
    });
    expect(JSON.stringify(events)).not.toContain("ada@exa");
    expect(events.some((event) => event.type === "response.completed")).toBe(false);
  });
});

describe("guardedCodexBytes on a stream cut short", () => {
  it("releases the text still held back (masked) when upstream ends without completing", async () => {
    const cut = answer(["reach ada@exam", "ple.com or me"]).split("event: response.output_text.done")[0] ?? "";
    const events = await eventsOf(cut, guardOf("mask", []), 9);
    const deltas = events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta);
    expect(deltas.join("")).toBe("reach [EMAIL] or me");
  });
});

describe("guardedCodexBytes on reasoning summaries and function call arguments", () => {
  const SUMMARY = `Mail ${EMAIL} first`;
  const ARGS = JSON.stringify({ to: EMAIL, subject: "hi" });

  it("masks an email split anywhere in a summary and in the arguments; every event stays valid JSON and carries the mask", async () => {
    for (let offset = 1; offset < ARGS.length; offset += 3)
      for (const size of [5, 4096]) {
        const hits: GuardrailHit[] = [];
        const summaryAt = Math.min(offset, SUMMARY.length - 1);
        const stream = codexAnswerStream({
          reasoningSummary: [SUMMARY.slice(0, summaryAt), SUMMARY.slice(summaryAt)],
          functionCall: { name: "send_mail", arguments: [ARGS.slice(0, offset), ARGS.slice(offset)] },
        });
        const events = await eventsOf(stream, guardOf("mask", hits), size);
        const at = `offset ${offset}, chunks of ${size}`;
        const deltasOf = (type: string) =>
          events
            .filter((event) => event.type === type)
            .map((event) => event.delta)
            .join("");
        expect(deltasOf("response.reasoning_summary_text.delta"), at).toBe("Mail [EMAIL] first");
        const args = deltasOf("response.function_call_arguments.delta");
        expect(JSON.parse(args), at).toEqual({ to: "[EMAIL]", subject: "hi" });
        expect(JSON.stringify(events), at).not.toContain(EMAIL);
        expect(events.find((event) => event.type === "response.reasoning_summary_text.done")?.text).toBe("Mail [EMAIL] first");
        expect(events.find((event) => event.type === "response.reasoning_summary_part.done")?.part).toMatchObject({
          text: "Mail [EMAIL] first",
        });
        expect(events.find((event) => event.type === "response.function_call_arguments.done")?.arguments).toBe(args);
        const output = (events.at(-1) as { response: { output: Array<Record<string, unknown>> } }).response.output;
        expect(output).toEqual([
          expect.objectContaining({ type: "reasoning", summary: [{ type: "summary_text", text: "Mail [EMAIL] first" }] }),
          expect.objectContaining({ type: "function_call", name: "send_mail", arguments: args }),
        ]);
        expect(hits.map((hit) => hit.entity)).toEqual(["email", "email"]);
      }
  });

  it("ends the stream with response.failed when a blocked entity is in the arguments, before any part of it is sent", async () => {
    const stream = codexAnswerStream({
      reasoningSummary: ["Nothing to hide"],
      functionCall: { name: "send_mail", arguments: ['{"to":"ada@exa', 'mple.com"}'] },
      text: ["never sent"],
    });
    const events = await eventsOf(stream, guardOf("block", []), 64);
    expect(events.at(-1)).toMatchObject({
      type: "response.failed",
      response: { status: "failed", error: { code: "guardrail_violation" } },
    });
    expect(JSON.stringify(events)).not.toContain("ada@exa");
    expect(events.some((event) => event.type === "response.output_text.delta")).toBe(false);
    expect(events.filter((event) => event.type === "response.reasoning_summary_text.delta")).toHaveLength(1);
  });
});
