import { startFakeOpenAI } from "@conduit-ai/fakes";
import { MemoryUsageSink, type UsageEvent } from "@conduit-ai/governance";
import { createGuardrails } from "@conduit-ai/guardrails";
import { afterEach, expect, it } from "vitest";
import WebSocket from "ws";
import { type GovernedGateway, type Json, startGovernedGateway } from "./fixtures/governed-gateway.js";
import { forEachAdapter } from "./harness.js";

// Guardrail hits of the `/api/ai` workflows' and the `/ws` messages' model calls reach what
// operators read, not only the metrics: each call's usage event names them (the usage history),
// and the live feed (the console's Live page) lists them: on an `/api/ai` request's row, and on
// the row of each `/ws` message that started work (method `WS`, route `/ws <type>`). A call a
// guardrail blocked is settled as a 400 with its hits; its prompt never reached the model.
const SECRET = "AKIAIOSFODNN7EXAMPLE";
const EMAIL = "ada.lovelace@example.com";

const guardrails = () =>
  createGuardrails({
    rules: [
      { name: "pii", kind: "pii", entities: ["email"], on: "request", action: "mask" },
      { name: "no-secrets", kind: "secrets", on: "request", action: "block" },
    ],
    default: ["pii", "no-secrets"],
  });

/** A usage sink that also keeps every event for the test. */
function observedUsage(): { usage: MemoryUsageSink; events: UsageEvent[] } {
  const events: UsageEvent[] = [];
  const usage = new MemoryUsageSink();
  const append = usage.append.bind(usage);
  usage.append = (event) => {
    events.push(event);
    append(event);
  };
  return { usage, events };
}

/** A `/ws` connection with a virtual key; `ask` sends one message and resolves with the answer of its id. */
async function openSocket(gateway: GovernedGateway, key: string) {
  const socket = new WebSocket(gateway.url("/ws").replace(/^http/, "ws"), { headers: { "x-api-key": key } });
  const waiting = new Map<string, (message: Json) => void>();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as Json;
    if (typeof message.id === "string") waiting.get(message.id)?.(message);
  });
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const ask = (message: Json) =>
    new Promise<Json>((resolve) => {
      waiting.set(message.id, resolve);
      socket.send(JSON.stringify(message));
    });
  return { socket, ask };
}

forEachAdapter("guardrail hits of /api/ai and /ws in the usage history and live feed", ({ start }) => {
  let gateway: GovernedGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it("an /api/ai workflow's masked prompt: its model call's usage event and its request's live feed entry name the guardrail", async () => {
    // A provider besides the local one: the workflow asks a model (the local one gets no workflow calls).
    const openai = await startFakeOpenAI();
    const { usage, events } = observedUsage();
    gateway = await startGovernedGateway(start, {
      guardrails: guardrails(),
      usage,
      openai: { baseURL: openai.baseURL, models: ["gpt-4o-mini"] },
    });
    const { id, key } = await gateway.mint({});
    const answer = await gateway.post("/api/ai/optimize-parameters", key, {
      prompt: `summarize the mail of ${EMAIL}`,
      style: "precise",
      optimizeFor: "cost",
    });
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.stringify(openai.requests.map((request) => request.body))).not.toContain(EMAIL);
    const requestId = answer.headers.get("x-request-id");
    const entry = () => gateway?.feed.recent().find((event) => event.requestId === requestId);
    await expect.poll(() => entry()?.guardrails).toContain("pii:mask:request:email");
    expect(entry()?.route).toBe("/api/ai/optimize-parameters");
    await expect
      .poll(() => events.find((event) => event.key === id)?.guardrails)
      .toEqual([{ guardrail: "pii", action: "mask", direction: "request", entity: "email" }]);
    await openai.close();
  });

  it("a /ws message's masked prompt is in its usage event; a blocked one is settled as a 400 naming the guardrail", async () => {
    const { usage, events } = observedUsage();
    gateway = await startGovernedGateway(start, { guardrails: guardrails(), usage, webSocket: true });
    const { id, key } = await gateway.mint({});
    const { socket, ask } = await openSocket(gateway, key);
    try {
      const masked = await ask({ type: "generate", id: "m1", payload: { input: { text: `write to ${EMAIL}` } } });
      expect(masked.type).toBe("result");
      expect(JSON.stringify(masked)).not.toContain(EMAIL);
      await expect.poll(() => events.filter((event) => event.key === id)).toHaveLength(1);
      expect(events[0]).toMatchObject({
        status: 200,
        guardrails: [{ guardrail: "pii", action: "mask", direction: "request", entity: "email" }],
      });
      const blocked = await ask({ type: "generate", id: "b1", payload: { input: { text: `deploy with ${SECRET}` } } });
      expect(blocked).toMatchObject({ type: "error", payload: { code: "guardrail_violation" } });
      expect(JSON.stringify(blocked)).not.toContain(SECRET);
      await expect.poll(() => events.filter((event) => event.key === id)).toHaveLength(2);
      expect(events[1]).toMatchObject({
        status: 400,
        inputTokens: 0,
        outputTokens: 0,
        guardrails: [{ guardrail: "no-secrets", action: "block", direction: "request", entity: "aws-access-key" }],
      });
      // Each message is a row of the live feed (the console's Live page), as an HTTP request is.
      const row = (requestId: string) => gateway?.feed.recent().find((event) => event.requestId === requestId);
      expect(row("m1")).toMatchObject({
        method: "WS",
        route: "/ws generate",
        status: 200,
        key: id,
        keyName: "gateway-test",
        model: expect.any(String),
        guardrails: ["pii:mask:request:email"],
      });
      expect(row("m1")?.outputTokens).toBeGreaterThan(0);
      expect(row("b1")).toMatchObject({ method: "WS", status: 400, key: id, guardrails: ["no-secrets:block:request:aws-access-key"] });
      expect(JSON.stringify(gateway.feed.recent())).not.toContain(SECRET);
    } finally {
      socket.close();
    }
  });

  it("a /ws stream a response rule stopped is settled at its reservation as a 400 naming the guardrail", async () => {
    const { usage, events } = observedUsage();
    const answerRules = createGuardrails({
      rules: [{ name: "secrets-out", kind: "secrets", on: "response", action: "block" }],
      default: ["secrets-out"],
    });
    gateway = await startGovernedGateway(start, { guardrails: answerRules, usage, webSocket: true });
    const { id, key } = await gateway.mint({});
    const { socket } = await openSocket(gateway, key);
    try {
      const received: Json[] = [];
      socket.on("message", (data) => received.push(JSON.parse(String(data)) as Json));
      // The local model echoes the prompt: its answer carries the secret.
      socket.send(JSON.stringify({ type: "stream", id: "s1", payload: { input: { text: `the key is ${SECRET}` } } }));
      await expect.poll(() => received.find((message) => message.payload?.type === "error")).toBeDefined();
      expect(received.find((message) => message.payload?.type === "error")?.payload.data.code).toBe("guardrail_violation");
      expect(JSON.stringify(received)).not.toContain(SECRET);
      await expect.poll(() => events.filter((event) => event.key === id)).toHaveLength(1);
      expect(events[0]).toMatchObject({
        status: 400,
        estimated: true,
        guardrails: [{ guardrail: "secrets-out", action: "block", direction: "response", entity: "aws-access-key" }],
      });
      // The stream's live feed row: 200 once it streamed (as an HTTP stream's), with the hit.
      await expect
        .poll(() => gateway?.feed.recent().find((event) => event.requestId === "s1"))
        .toMatchObject({
          method: "WS",
          route: "/ws stream",
          status: 200,
          key: id,
          guardrails: ["secrets-out:block:response:aws-access-key"],
        });
    } finally {
      socket.close();
    }
  });
});
