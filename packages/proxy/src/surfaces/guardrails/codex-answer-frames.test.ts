import { type GuardrailHit, createGuardrails } from "@conduit-ai/guardrails";
import { describe, expect, it } from "vitest";
import type { CallGuard } from "../../admission/call-guard.js";
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
