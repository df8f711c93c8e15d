import { createRuntime } from "@conduit-ai/runtime";
import { createAgentRoutes, createMemoryRoutes, silentLogger } from "@conduit-ai/server-core";
import { expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";

forEachAdapter("conversation memory bounds", ({ start }) => {
  it("keeps at most maxSessions (least recently written evicted) and maxMessagesPerSession per session", async () => {
    const runtime = createRuntime({ env: {}, logger: silentLogger, memoryLimits: { maxSessions: 3, maxMessagesPerSession: 4 } });
    const server = await start({
      runtime,
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        adapter.registerRouteGroup(createAgentRoutes(runtime));
        adapter.registerRouteGroup(createMemoryRoutes(runtime));
      },
    });
    const execute = async (sessionId: string, text = "hello") => {
      const response = await fetch(server.url("/api/agent/execute"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: { text }, sessionId }),
      });
      expect(response.status).toBe(200);
    };
    for (const id of ["s0", "s1", "s2", "s3", "s4"]) await execute(id);
    const list = await (await fetch(server.url("/api/memory/sessions"))).json();
    expect(list.data.total).toBe(3);
    expect(list.data.sessions.map((session: { id: string }) => session.id)).toEqual(["s4", "s3", "s2"]);
    const evicted = await fetch(server.url("/api/memory/sessions/s0"));
    expect(evicted.status).toBe(404);
    expect((await evicted.json()).error.code).toBe("SESSION_NOT_FOUND");

    for (const text of ["one", "two", "three"]) await execute("s4", text);
    const messages = await (await fetch(server.url("/api/memory/sessions/s4/messages"))).json();
    expect(messages.data.total).toBe(4);
    expect(messages.data.messages.map((message: { content: string }) => message.content).slice(0, 1)).toEqual(["two"]);
    await runtime.close();
  });
});
