import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createErrorHandlingMiddleware } from "../error-handling.js";
import { createTestApp } from "../../testing/test-kit.js";
import { createLoggingMiddleware, createServerLogger } from "./logging.js";
import { requestLogger } from "./request-logger.js";

function capture() {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const lines = () => chunks.join("").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  return { destination, text: () => chunks.join(""), lines };
}

const SECRETS = ["Bearer sk-live-0123456789", "session=topsecretcookie", "key-abcdef-999", "tok-zzz-777", "apikey-qqq-555"];

describe("logging middleware", () => {
  it("writes structured JSON with the request id and never a secret", async () => {
    const output = capture();
    const logging = createLoggingMiddleware({ level: "debug", destination: output.destination, basePath: "/api" });
    const { request } = createTestApp({
      middleware: [createErrorHandlingMiddleware(), logging],
      routes: [
        {
          method: "GET",
          path: "/work",
          handler: (ctx) => {
            // A careless handler logging the whole header set must still not leak.
            requestLogger(ctx)?.info({ headers: ctx.headers, token: "tok-zzz-777" }, "handler saw headers");
            return "done";
          },
        },
        {
          method: "GET",
          path: "/boom",
          handler: () => {
            throw new Error("exploded");
          },
        },
      ],
    });
    const headers = { authorization: SECRETS[0] as string, cookie: SECRETS[1] as string, "x-api-key": SECRETS[2] as string };
    const ok = await request({ url: "/api/work?api_key=apikey-qqq-555&token=tok-zzz-777&page=2", headers });
    const failed = await request({ url: "/api/boom?access_token=tok-zzz-777", headers });
    for (const secret of SECRETS) expect(output.text()).not.toContain(secret);

    const lines = output.lines();
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) expect(line.requestId).toMatch(/^req-/);
    const completed = lines.filter((line) => line.msg === "request completed");
    expect(completed[0]).toMatchObject({ requestId: ok.headers["x-request-id"], status: 200, method: "GET", url: "/api/work?api_key=[REDACTED]&token=[REDACTED]&page=2" });
    expect(completed[1]).toMatchObject({ requestId: failed.headers["x-request-id"], status: 500 });
    expect(lines.some((line) => line.msg === "request failed" && line.requestId === failed.headers["x-request-id"])).toBe(true);
  });

  it("skips /health, /ready and /metrics (prefix, with and without basePath) and honors the level", async () => {
    const output = capture();
    const { request } = createTestApp({
      middleware: [createLoggingMiddleware({ destination: output.destination, basePath: "/api", level: "info" })],
    });
    for (const url of ["/api/metrics", "/api/health/anything", "/health", "/ready", "/metrics"]) await request({ url });
    expect(output.text()).toBe("");
    await request({ url: "/api/other" });
    expect(output.lines()).toHaveLength(1);

    const quiet = capture();
    const warnOnly = createTestApp({ middleware: [createLoggingMiddleware({ destination: quiet.destination, level: "warn" })] });
    await warnOnly.request({ url: "/api/other" });
    expect(quiet.text()).toBe("");
  });

  it("the server logger censors secret fields wherever they are logged", () => {
    const output = capture();
    const logger = createServerLogger({ destination: output.destination });
    logger.info({ req: { headers: { authorization: "Bearer x-secret-1", "set-cookie": "a=x-secret-2" } }, password: "x-secret-3" }, "test");
    expect(output.text()).not.toMatch(/x-secret/);
    expect(output.text()).toContain("[REDACTED]");
  });
});
