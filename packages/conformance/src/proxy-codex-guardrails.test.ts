import { codexAnswerStream } from "@conduit-ai/fakes";
import { createGuardrails } from "@conduit-ai/guardrails";
import OpenAI from "openai";
import { afterEach, expect, it } from "vitest";
import { type GovernedGateway, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { forEachAdapter } from "./harness.js";

// Request guardrails on the codex surface (`/backend-api/codex/responses`): a block is a 400 in
// the codex backend's error shape and nothing goes upstream; a mask sends the masked body; with
// no guardrail the client's bytes go upstream untouched. Answer guardrails on the backend's
// Responses stream: `output_text.delta` text masked in place (the official SDK still parses it,
// the events repeating the whole text carry the mask) and a block ending it with `response.failed`;
// reasoning summaries and function call arguments are model text too, guarded the same way.
const SECRET = "AKIAIOSFODNN7EXAMPLE";
const EMAIL = "grace.hopper@example.com";
const PATH = "/backend-api/codex/responses";

/** A codex backend answer streaming `deltas` as one output text, with the events that repeat it whole. */
function codexAnswer(deltas: string[]): string {
  const response = { id: "resp_1", object: "response", created_at: 1_700_000_000, model: "gpt-5-codex", status: "in_progress", output: [] };
  const text = deltas.join("");
  const part = { type: "output_text", text, annotations: [] };
  const message = { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [part] };
  const usage = {
    input_tokens: 5,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 10,
  };
  const at = { item_id: "msg_1", output_index: 0, content_index: 0 };
  const events: Array<Record<string, unknown>> = [
    { type: "response.created", response },
    { type: "response.output_item.added", output_index: 0, item: { ...message, status: "in_progress", content: [] } },
    { type: "response.content_part.added", ...at, part: { ...part, text: "" } },
    ...deltas.map((delta) => ({ type: "response.output_text.delta", ...at, delta })),
    { type: "response.output_text.done", ...at, text },
    { type: "response.content_part.done", ...at, part },
    { type: "response.output_item.done", output_index: 0, item: message },
    { type: "response.completed", response: { ...response, status: "completed", output: [message], usage } },
  ];
  return events
    .map((event, sequence) => `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}\n\n`)
    .join("");
}

const bodyWith = (text: string) => ({ model: "gpt-5-codex", stream: true, input: [{ role: "user", content: text }] });

forEachAdapter("guardrails on the codex surface", ({ start }) => {
  let gateway: GovernedGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it("blocks a request with 400 guardrail_violation in codex's shape, nothing sent upstream", async () => {
    gateway = await startGovernedGateway(start, {
      guardrails: createGuardrails({
        rules: [{ name: "no-secrets", kind: "secrets", on: "request", action: "block" }],
        default: ["no-secrets"],
      }),
    });
    const { key } = await gateway.mint({});
    const answer = await gateway.post(PATH, key, bodyWith(`use ${SECRET}`));
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ type: "guardrail_violation", code: "guardrail_violation" });
    expect(answer.json.error.message).toContain("no-secrets");
    expect(answer.text).not.toContain(SECRET);
    expect(gateway.codex.requests).toHaveLength(0);
  });

  it("masks a request before it goes upstream; without a guardrail the bytes go as they came", async () => {
    gateway = await startGovernedGateway(start, {
      guardrails: createGuardrails({ rules: [{ name: "pii", kind: "pii", on: "request", action: "mask" }], default: ["pii"] }),
    });
    const masked = await gateway.mint({});
    expect((await gateway.post(PATH, masked.key, bodyWith(`write to ${EMAIL}`))).status).toBe(200);
    const sent = gateway.codex.requests.at(-1)?.raw.toString("utf8") ?? "";
    expect(sent).toContain("write to [EMAIL]");
    expect(sent).not.toContain(EMAIL);
    const unguarded = await gateway.mint({ guardrails: ["!pii"] });
    const text = ` ${JSON.stringify(bodyWith(`write to ${EMAIL}`))}`;
    expect((await gateway.post(PATH, unguarded.key, text)).status).toBe(200);
    expect(gateway.codex.requests.at(-1)?.raw.toString("utf8")).toBe(text);
  });

  it("masks an email split across two answer deltas at every offset; the official SDK parses each stream", async () => {
    gateway = await startGovernedGateway(start, {
      guardrails: createGuardrails({ rules: [{ name: "pii", kind: "pii", on: "response", action: "mask" }], default: ["pii"] }),
    });
    const { key } = await gateway.mint({});
    const openai = new OpenAI({ apiKey: key, baseURL: gateway.url("/backend-api/codex"), maxRetries: 0, timeout: 20_000 });
    const answer = `mail ${EMAIL} today`;
    for (let offset = 5; offset <= 5 + EMAIL.length; offset++) {
      gateway.codex.reply({ kind: "sse", text: codexAnswer([answer.slice(0, offset), answer.slice(offset)]) });
      const stream = openai.responses.stream({ model: "gpt-5-codex", input: "write" });
      let deltas = "";
      for await (const event of stream) if (event.type === "response.output_text.delta") deltas += event.delta;
      const final = await stream.finalResponse();
      expect(deltas, `split at ${offset}`).toBe("mail [EMAIL] today");
      expect(final.output_text).toBe("mail [EMAIL] today");
      expect(JSON.stringify(final)).not.toContain(EMAIL);
    }
  });

  it("blocks a secret split across answer deltas with response.failed before any part of it is sent", async () => {
    gateway = await startGovernedGateway(start, {
      guardrails: createGuardrails({
        rules: [{ name: "no-secrets", kind: "secrets", on: "response", action: "block" }],
        default: ["no-secrets"],
      }),
    });
    const { key } = await gateway.mint({});
    const openai = new OpenAI({ apiKey: key, baseURL: gateway.url("/backend-api/codex"), maxRetries: 0, timeout: 20_000 });
    gateway.codex.reply({ kind: "sse", text: codexAnswer(["the key is ", SECRET.slice(0, 9), `${SECRET.slice(9)} ok`]) });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await openai.responses.create({ model: "gpt-5-codex", input: "write", stream: true })) events.push(event);
    const last = events.at(-1);
    expect(last).toMatchObject({ type: "response.failed", response: { status: "failed", error: { code: "guardrail_violation" } } });
    expect(JSON.stringify(last)).toContain("no-secrets");
    const sent = JSON.stringify(events);
    expect(sent).not.toContain(SECRET.slice(0, 9));
    expect(events.some((event) => event.type === "response.completed")).toBe(false);
    // Without an answer guardrail the backend's bytes pass untouched.
    const raw = codexAnswer(["plain ", SECRET]);
    const unguarded = await gateway.mint({ guardrails: ["!no-secrets"] });
    gateway.codex.reply({ kind: "sse", text: raw });
    expect((await gateway.post(PATH, unguarded.key, bodyWith("write"))).text).toBe(raw);
  });

  it("masks an email in a streamed reasoning summary and in function call arguments; the official SDK parses the stream", async () => {
    gateway = await startGovernedGateway(start, {
      guardrails: createGuardrails({ rules: [{ name: "pii", kind: "pii", on: "response", action: "mask" }], default: ["pii"] }),
    });
    const { key } = await gateway.mint({});
    const openai = new OpenAI({ apiKey: key, baseURL: gateway.url("/backend-api/codex"), maxRetries: 0, timeout: 20_000 });
    const args = JSON.stringify({ to: EMAIL, body: "see you" });
    const summary = `Write to ${EMAIL} first`;
    for (const offset of [3, 10, 14, 20]) {
      gateway.codex.reply({
        kind: "sse",
        text: codexAnswerStream({
          reasoningSummary: [summary.slice(0, offset), summary.slice(offset)],
          functionCall: { name: "send_mail", arguments: [args.slice(0, offset), args.slice(offset)] },
          text: ["Sending now."],
        }),
      });
      const stream = openai.responses.stream({ model: "gpt-5-codex", input: "mail grace" });
      let reasoning = "";
      let streamedArgs = "";
      for await (const event of stream) {
        if (event.type === "response.reasoning_summary_text.delta") reasoning += event.delta;
        if (event.type === "response.function_call_arguments.delta") streamedArgs += event.delta;
      }
      const final = await stream.finalResponse();
      expect(reasoning, `split at ${offset}`).toBe("Write to [EMAIL] first");
      expect(JSON.parse(streamedArgs)).toEqual({ to: "[EMAIL]", body: "see you" });
      const call = final.output.find((item) => item.type === "function_call");
      expect(call && "arguments" in call ? JSON.parse(call.arguments) : undefined).toEqual({ to: "[EMAIL]", body: "see you" });
      const reasoningItem = final.output.find((item) => item.type === "reasoning");
      expect(reasoningItem && "summary" in reasoningItem ? reasoningItem.summary : undefined).toEqual([
        { type: "summary_text", text: "Write to [EMAIL] first" },
      ]);
      expect(final.output_text).toBe("Sending now.");
      expect(JSON.stringify(final)).not.toContain(EMAIL);
    }
    // The hits reach the console's Live page: each streamed answer's feed entry names the rule (both texts masked).
    const codexEntries = () => gateway?.feed.recent().filter((event) => event.route.includes("codex")) ?? [];
    await expect.poll(() => codexEntries().length).toBe(4);
    for (const entry of codexEntries()) expect(entry.guardrails).toEqual(["pii:mask:response:email", "pii:mask:response:email"]);
  });

  it("ends the stream with response.failed when function call arguments carry a blocked secret", async () => {
    gateway = await startGovernedGateway(start, {
      guardrails: createGuardrails({
        rules: [{ name: "no-secrets", kind: "secrets", on: "response", action: "block" }],
        default: ["no-secrets"],
      }),
    });
    const { key } = await gateway.mint({});
    const openai = new OpenAI({ apiKey: key, baseURL: gateway.url("/backend-api/codex"), maxRetries: 0, timeout: 20_000 });
    const args = JSON.stringify({ command: `aws configure set key ${SECRET}` });
    gateway.codex.reply({
      kind: "sse",
      text: codexAnswerStream({
        reasoningSummary: ["Configure the CLI"],
        functionCall: { name: "shell", arguments: [args.slice(0, 40), args.slice(40)] },
      }),
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await openai.responses.create({ model: "gpt-5-codex", input: "configure", stream: true })) events.push(event);
    expect(events.at(-1)).toMatchObject({
      type: "response.failed",
      response: { status: "failed", error: { code: "guardrail_violation" } },
    });
    expect(JSON.stringify(events.at(-1))).toContain("no-secrets");
    expect(JSON.stringify(events)).not.toContain(SECRET.slice(0, 8));
    expect(events.some((event) => event.type === "response.reasoning_summary_text.delta")).toBe(true);
    expect(events.some((event) => event.type === "response.function_call_arguments.done")).toBe(false);
  });
});
