import type { IncomingMessage } from "node:http";
import { RequestFeed, recordCallGuardrailHits } from "@conduit-ai/server-core/internal";
import { describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { messageFeedReporter } from "./message-feed.js";
import { WebSocketConnection } from "./websocket-connection.js";

const connection = (metadata?: Record<string, unknown>) =>
  new WebSocketConnection("c1", {} as WebSocket, {} as IncomingMessage, metadata ? { id: "u1", metadata } : undefined);

describe("messageFeedReporter", () => {
  it("publishes one row per message: WS, the path and type, key, model, tokens and guardrail hits, never content", () => {
    const feed = new RequestFeed();
    const report = messageFeedReporter(() => feed, "/ws");
    const context = {};
    recordCallGuardrailHits(context, [{ guardrail: "pii", action: "mask", direction: "request", entity: "email" }]);
    const message = { type: "generate", id: "m-1", payload: { input: { text: "write to ada@example.com" } } };
    report(message, connection({ key: "k_1", keyName: "ci" }), context, performance.now() - 5, {
      status: 200,
      model: "local/echo",
      usage: { inputTokens: 3, outputTokens: 4 },
    });
    const [row] = feed.recent();
    expect(row).toMatchObject({
      requestId: "m-1",
      method: "WS",
      route: "/ws generate",
      status: 200,
      key: "k_1",
      keyName: "ci",
      model: "local/echo",
      inputTokens: 3,
      outputTokens: 4,
      guardrails: ["pii:mask:request:email"],
    });
    expect(row?.latencyMs).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(row)).not.toContain("ada@example.com");
  });

  it("a client's unsafe message id is not a request id; no key, model or hits: none on the row", () => {
    const feed = new RequestFeed();
    messageFeedReporter(() => feed, "/socket")({ type: "stream", id: "<script> id" }, connection(), {}, performance.now(), { status: 502 });
    const [row] = feed.recent();
    expect(row?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(row).toMatchObject({ route: "/socket stream", status: 502 });
    expect(Object.keys(row ?? {}).sort()).toEqual(["latencyMs", "method", "requestId", "route", "status", "time"]);
  });

  it("publishes nothing without a feed", () => {
    expect(() => messageFeedReporter(() => undefined, "/ws")({ type: "generate" }, connection(), {}, 0, { status: 200 })).not.toThrow();
  });
});
