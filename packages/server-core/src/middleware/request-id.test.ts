import { describe, expect, it } from "vitest";
import { createRequestIdMiddleware } from "./request-id.js";
import { createTestApp } from "../testing/test-kit.js";

const routes = [{ method: "GET" as const, path: "/echo", handler: (ctx: { requestId: string }) => ({ id: ctx.requestId }) }];

describe("request id middleware", () => {
  it("keeps a safe incoming x-request-id in the header and the envelope", async () => {
    const { request } = createTestApp({ middleware: [createRequestIdMiddleware()], routes });
    const response = await request({ url: "/api/echo", headers: { "x-request-id": "abc-123:4.5_6" } });
    expect(response.headers["x-request-id"]).toBe("abc-123:4.5_6");
    const body = response.json<{ data: { id: string }; metadata: { requestId: string } }>();
    expect(body.data.id).toBe("abc-123:4.5_6");
    expect(body.metadata.requestId).toBe("abc-123:4.5_6");
  });

  it.each(["bad id", "x".repeat(129), "a\u0000b", "<script>"])("replaces the unsafe id %j with req-…", async (unsafe) => {
    const { request } = createTestApp({ middleware: [createRequestIdMiddleware()], routes });
    const response = await request({ url: "/api/echo", headers: { "x-request-id": unsafe } });
    expect(response.headers["x-request-id"]).toMatch(/^req-[0-9a-f-]{36}$/);
    expect(response.json<{ metadata: { requestId: string } }>().metadata.requestId).toBe(response.headers["x-request-id"]);
  });

  it("honors a custom header, prefix and generator, also in error envelopes", async () => {
    const { request } = createTestApp({
      middleware: [createRequestIdMiddleware({ headerName: "X-Correlation-Id", prefix: "api" })],
      routes,
    });
    const generated = await request({ url: "/api/missing" });
    const id = generated.headers["x-correlation-id"] as string;
    expect(id).toMatch(/^api-/);
    expect(generated.headers["x-request-id"]).toBeUndefined();
    expect(generated.json<{ error: { requestId: string } }>().error.requestId).toBe(id);
    const incoming = await request({ url: "/api/echo", headers: { "x-correlation-id": "given-1" } });
    expect(incoming.headers["x-correlation-id"]).toBe("given-1");

    let counter = 0;
    const custom = createTestApp({ middleware: [createRequestIdMiddleware({ generator: () => `n${++counter}` })], routes });
    expect((await custom.request({ url: "/api/echo" })).headers["x-request-id"]).toBe("n1");
  });
});
