import { describe, expect, it } from "vitest";
import { ABORT_REASON_STATE_KEY, createAbortSignalMiddleware } from "./abort-signal.js";
import { createDeprecationMiddleware } from "./deprecation.js";
import { createTestApp } from "../testing/test-kit.js";

describe("deprecation middleware", () => {
  it("marks routes defined deprecated and routes listed in options (RFC 8594)", async () => {
    const middleware = createDeprecationMiddleware({
      routes: [
        { path: "/api/v1/*", sunset: "2027-01-01T00:00:00Z", deprecatedAt: "2026-01-01T00:00:00Z", link: "https://docs.example/v2" },
      ],
      link: "https://docs.example/deprecations",
    });
    const { request } = createTestApp({
      middleware: [middleware],
      routes: [
        { method: "GET", path: "/v1/things", handler: () => [] },
        { method: "GET", path: "/old", deprecated: true, handler: () => "old" },
        { method: "GET", path: "/new", handler: () => "new" },
      ],
    });
    const listed = await request({ url: "/api/v1/things" });
    expect(listed.headers).toMatchObject({
      deprecation: `@${Date.parse("2026-01-01T00:00:00Z") / 1000}`,
      sunset: "Fri, 01 Jan 2027 00:00:00 GMT",
      link: '<https://docs.example/v2>; rel="deprecation"',
    });
    expect(listed.headers["x-deprecation-notice"]).toContain("deprecated");
    const flagged = await request({ url: "/api/old" });
    expect(flagged.headers.deprecation).toBe("true");
    expect(flagged.headers.link).toBe('<https://docs.example/deprecations>; rel="deprecation"');
    expect(flagged.headers["x-deprecation-notice"]).toBe("GET /api/old is deprecated");
    const current = await request({ url: "/api/new" });
    expect(current.headers.deprecation).toBeUndefined();
    expect(current.headers["x-deprecation-notice"]).toBeUndefined();
  });

  it("honors noticeHeader and includeLink: false", async () => {
    const { request } = createTestApp({
      middleware: [
        createDeprecationMiddleware({
          routes: ["/api/x"],
          noticeHeader: "X-API-Warn",
          includeLink: false,
          link: "https://l",
          message: "use /y",
        }),
      ],
      routes: [{ method: "GET", path: "/x", handler: () => 1 }],
    });
    const response = await request({ url: "/api/x" });
    expect(response.headers["x-api-warn"]).toBe("use /y");
    expect(response.headers.link).toBeUndefined();
  });
});

describe("abort signal middleware", () => {
  it("the handler observes the abort on timeout; the reason is recorded and the client gets 408", async () => {
    const reasons: unknown[] = [];
    let observed: unknown;
    const { request } = createTestApp({
      config: { timeout: 100 },
      middleware: [createAbortSignalMiddleware({ onAbort: (reason) => reasons.push(reason) })],
      routes: [
        {
          method: "GET",
          path: "/slow",
          handler: (ctx) =>
            new Promise((resolve) => {
              ctx.abortSignal.addEventListener("abort", () => {
                observed = ctx.state[ABORT_REASON_STATE_KEY];
                resolve("late");
              });
            }),
        },
      ],
    });
    const response = await request({ url: "/api/slow" });
    expect(response.status).toBe(408);
    expect(response.json<{ error: { code: string } }>().error.code).toBe("TIMEOUT");
    expect(reasons).toHaveLength(1);
    expect((reasons[0] as { code: string }).code).toBe("TIMEOUT");
    expect((observed as { code: string }).code).toBe("TIMEOUT");
  });

  it("client disconnect aborts with STREAM_ABORTED", async () => {
    const client = new AbortController();
    const reasons: Array<{ code: string }> = [];
    const { request } = createTestApp({
      middleware: [createAbortSignalMiddleware({ onAbort: (reason) => reasons.push(reason as { code: string }) })],
      routes: [
        {
          method: "GET",
          path: "/wait",
          handler: (ctx) => new Promise((resolve) => ctx.abortSignal.addEventListener("abort", () => resolve("gone"))),
        },
      ],
    });
    const pending = request({ url: "/api/wait", signal: client.signal });
    setTimeout(() => client.abort(), 20);
    await pending;
    expect(reasons.map((reason) => reason.code)).toEqual(["STREAM_ABORTED"]);
  });
});
