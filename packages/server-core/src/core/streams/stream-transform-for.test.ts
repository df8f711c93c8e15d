import { describe, expect, it } from "vitest";
import type { DataStreamEvent } from "../../contracts/stream-event.js";
import { createTestApp } from "../../testing/test-kit.js";
import { streamEventTransformFor } from "./stream-redaction.js";

const event: DataStreamEvent = { type: "data", timestamp: 1, data: { apiKey: "sk-live-123", visible: "yes" } };

describe("streamEventTransformFor(ctx)", () => {
  it("carries config.redaction to streams a handler encodes itself (createWebStreamWriter({ context }))", async () => {
    const app = createTestApp({
      config: { redaction: { enabled: true } },
      routes: [{ method: "GET", path: "/seen", handler: (ctx) => streamEventTransformFor(ctx)?.(event) ?? event }],
    });
    const response = await app.request({ url: "/api/seen" });
    expect(response.json()).toMatchObject({ data: { data: { apiKey: "[REDACTED]", visible: "yes" } } });
  });

  it("is undefined when redaction is off and nothing was added", async () => {
    const app = createTestApp({
      routes: [{ method: "GET", path: "/seen", handler: (ctx) => ({ none: streamEventTransformFor(ctx) === undefined }) }],
    });
    expect((await app.request({ url: "/api/seen" })).json()).toMatchObject({ data: { none: true } });
  });
});
