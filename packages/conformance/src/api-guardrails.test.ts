import { startFakeOpenAI } from "@conduit-ai/fakes";
import { MemoryUsageSink, type UsageEvent } from "@conduit-ai/governance";
import { createGuardrails } from "@conduit-ai/guardrails";
import { afterEach, expect, it } from "vitest";
import { type GovernedGateway, type Json, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { forEachAdapter } from "./harness.js";

// Guardrails on the server's own AI surfaces, wired as `conduit serve` wires them: /api/agent/*
// requests checked before the handler (a block is the server's 400 envelope, even on the stream),
// answers checked by the runtime the routes call (JSON and the SSE stream), and the /api/ai
// workflows' model calls checked one by one. The local runtime's model `echo` answers with the
// prompt, so what reaches it shows in its answer.
const SECRET = "AKIAIOSFODNN7EXAMPLE";
const EMAIL = "ada.lovelace@example.com";

const guardrailsFor = (on: "request" | "response", action: "mask" | "block") =>
  createGuardrails({
    rules: [
      { name: "pii", kind: "pii", on, action },
      { name: "no-secrets", kind: "secrets", on, action },
    ],
    default: ["pii", "no-secrets"],
  });

/** The `data:` payloads of an SSE answer. */
const eventsOf = (text: string): Json[] =>
  text
    .split("\n\n")
    .flatMap((frame) => frame.split("\n").filter((line) => line.startsWith("data: ")))
    .map((line) => JSON.parse(line.slice(6)) as Json);

forEachAdapter("guardrails on /api/agent/* and /api/ai/*", ({ start }) => {
  let gateway: GovernedGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it("blocks a request with 400 guardrail_violation in the server's envelope, stream and embeddings included, never echoing it", async () => {
    gateway = await startGovernedGateway(start, { guardrails: guardrailsFor("request", "block") });
    const { key } = await gateway.mint({});
    const prompt = `deploy with ${SECRET} please`;
    for (const [path, body] of [
      ["/api/agent/generate", { input: { text: prompt } }],
      ["/api/agent/execute", { prompt }],
      ["/api/agent/stream", { input: { text: prompt } }],
      ["/api/agent/stream", { messages: [{ role: "user", content: [{ type: "text", text: prompt }] }] }],
      ["/api/agent/embed", { text: prompt }],
      ["/api/agent/embed-many", { texts: ["fine", prompt] }],
    ] as const) {
      const answer = await gateway.post(path, key, body);
      expect(answer.status, path).toBe(400);
      expect(answer.json.error, path).toMatchObject({ code: "guardrail_violation" });
      expect(answer.json.error.message, path).toContain("no-secrets");
      expect(answer.json.error.message, path).toContain("aws-access-key");
      expect(answer.text, path).not.toContain(SECRET);
    }
    const clean = await gateway.post("/api/agent/generate", key, { input: { text: "hello there" } });
    expect(clean.status).toBe(200);
  });

  it("masks a request: the masked prompt is what reaches the model; the usage event names the hits; a key's `!name` drops one", async () => {
    const events: UsageEvent[] = [];
    const usage = new MemoryUsageSink();
    const append = usage.append.bind(usage);
    usage.append = (event) => {
      events.push(event);
      append(event);
    };
    gateway = await startGovernedGateway(start, { guardrails: guardrailsFor("request", "mask"), usage });
    const { id, key } = await gateway.mint({});
    const prompt = `write to ${EMAIL} about ${SECRET}`;
    const answer = await gateway.post("/api/agent/generate", key, { input: { text: prompt } });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("[EMAIL]");
    expect(answer.text).toContain("[AWS_ACCESS_KEY]");
    expect(answer.text).not.toContain(EMAIL);
    expect(answer.text).not.toContain(SECRET);
    await expect.poll(() => events.find((event) => event.key === id)).toBeDefined();
    expect(events.find((event) => event.key === id)?.guardrails).toEqual([
      { guardrail: "pii", action: "mask", direction: "request", entity: "email" },
      { guardrail: "no-secrets", action: "mask", direction: "request", entity: "aws-access-key" },
    ]);
    const withoutPii = await gateway.mint({ guardrails: ["!pii"] });
    const kept = await gateway.post("/api/agent/generate", withoutPii.key, { input: { text: prompt } });
    expect(kept.text).toContain(EMAIL);
    expect(kept.text).not.toContain(SECRET);
  });

  it("masks answers, whole and streamed (SSE events stay valid)", async () => {
    gateway = await startGovernedGateway(start, { guardrails: guardrailsFor("response", "mask") });
    const { key } = await gateway.mint({});
    const prompt = `write to ${EMAIL} about ${SECRET}`;
    const whole = await gateway.post("/api/agent/generate", key, { input: { text: prompt } });
    expect(whole.status).toBe(200);
    expect(whole.text).not.toContain(EMAIL);
    expect(whole.text).toContain("[EMAIL]");
    const streamed = await gateway.post("/api/agent/stream", key, { input: { text: prompt } });
    expect(streamed.status, streamed.text).toBe(200);
    const events = eventsOf(streamed.text);
    const text = events
      .filter((event) => event.type === "text-delta")
      .map((event) => event.data.delta as string)
      .join("");
    expect(text).toContain("[EMAIL]");
    expect(text).toContain("[AWS_ACCESS_KEY]");
    expect(streamed.text).not.toContain(EMAIL);
    expect(streamed.text).not.toContain(SECRET);
    expect(events.at(-1)?.type).toBe("finish");
  });

  it("blocks an answer: a whole one is a 400, a stream ends with the error event, nothing of the secret sent", async () => {
    gateway = await startGovernedGateway(start, { guardrails: guardrailsFor("response", "block") });
    const { key } = await gateway.mint({});
    const prompt = `the key is ${SECRET}`;
    const whole = await gateway.post("/api/agent/generate", key, { input: { text: prompt } });
    expect(whole.status).toBe(400);
    expect(whole.json.error).toMatchObject({ code: "guardrail_violation" });
    expect(whole.text).not.toContain(SECRET);
    const streamed = await gateway.post("/api/agent/stream", key, { input: { text: prompt } });
    const last = eventsOf(streamed.text).at(-1);
    expect(streamed.status, streamed.text).toBe(200);
    expect(last).toMatchObject({ type: "error", data: { code: "guardrail_violation" } });
    expect(streamed.text).not.toContain("AKIA");
  });

  it("blocks a workflow's prompt on /api/ai with 400 guardrail_violation, not a simulated result", async () => {
    // A provider besides the local one: the workflow asks a model (the local one gets no workflow calls).
    const openai = await startFakeOpenAI();
    gateway = await startGovernedGateway(start, {
      guardrails: guardrailsFor("request", "block"),
      openai: { baseURL: openai.baseURL, models: ["gpt-4o-mini"] },
    });
    const { key } = await gateway.mint({});
    const answer = await gateway.post("/api/ai/optimize-parameters", key, {
      prompt: `summarize the mail of ${EMAIL}`,
      style: "precise",
      optimizeFor: "cost",
    });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json.error).toMatchObject({ code: "guardrail_violation" });
    expect(answer.text).not.toContain(EMAIL);
    expect(openai.requests).toHaveLength(0);
    await openai.close();
  });
});
