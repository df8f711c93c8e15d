import { spawn } from "node:child_process";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
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
  const lines = () =>
    chunks
      .join("")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
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
    expect(completed[0]).toMatchObject({
      requestId: ok.headers["x-request-id"],
      status: 200,
      method: "GET",
      url: "/api/work?api_key=[REDACTED]&token=[REDACTED]&page=[REDACTED]",
    });
    expect(completed[1]).toMatchObject({ requestId: failed.headers["x-request-id"], status: 500 });
    expect(lines.some((line) => line.msg === "request failed" && line.requestId === failed.headers["x-request-id"])).toBe(true);
  });

  it("redacts every query value by default, and a key pasted as a bare parameter; queryValues: log keeps the harmless ones", async () => {
    const pasted = "sk-conduit-Zm9vYmFyYmF6cXV4MDEyMzQ1Njc4OWFiY2RlZmdoaWprbG1u";
    const run = async (queryValues?: "redact" | "log") => {
      const output = capture();
      const logging = createLoggingMiddleware({ destination: output.destination, ...(queryValues ? { queryValues } : {}) });
      const { request } = createTestApp({ middleware: [logging], routes: [{ method: "GET", path: "/work", handler: () => "done" }] });
      await request({ url: `/api/work?${pasted}` });
      await request({ url: `/api/work?q=${pasted}&page=2&page=3` });
      await request({ url: "/api/work?x%3Dy%26z=1" });
      return { text: output.text(), urls: output.lines().map((line) => line.url) };
    };
    const redacted = await run();
    expect(redacted.text).not.toContain(pasted);
    expect(redacted.text).not.toContain("Zm9vYmFy");
    expect(redacted.urls).toEqual([
      "/api/work?[REDACTED]",
      "/api/work?q=[REDACTED]&page=[REDACTED]&page=[REDACTED]",
      "/api/work?[REDACTED]",
    ]);
    const logged = await run("log");
    expect(logged.urls).toEqual(["/api/work?[REDACTED]", `/api/work?q=${pasted}&page=2&page=3`, "/api/work?[REDACTED]"]);
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

  it("follows the logger's level when it changes at run time, and a logger passed in keeps its own settings", async () => {
    const output = capture();
    const logging = createLoggingMiddleware({ destination: output.destination, level: "info" });
    const { request } = createTestApp({ middleware: [logging] });
    logging.logger.level = "warn";
    await request({ url: "/api/quiet" });
    expect(output.text()).toBe("");
    logging.logger.level = "info";
    await request({ url: "/api/loud" });
    expect(output.lines()).toEqual([expect.objectContaining({ msg: "request completed", url: "/api/loud", level: 30 })]);

    const own = capture();
    const logger = createServerLogger({ destination: own.destination }).child({ service: "billing" });
    await createTestApp({ middleware: [createLoggingMiddleware({ logger })] }).request({ url: "/api/billed" });
    expect(own.lines()).toEqual([expect.objectContaining({ service: "billing", msg: "request completed", url: "/api/billed" })]);
  });

  it("by default writes to stdout off the request path: buffered, yet flushed while idle and on exit", async () => {
    const fixture = fileURLToPath(new URL("../../testing/stdout-logger.fixture.ts", import.meta.url));
    const run = (mode: "stay" | "exit") => {
      const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@conduit-ai/source", fixture, mode], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let output = "";
      const line = new Promise<Record<string, unknown>>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes("\n")) resolve(JSON.parse(output.split("\n")[0] as string) as Record<string, unknown>);
        });
        child.once("exit", () => (output.includes("\n") ? undefined : reject(new Error(`exited without a line: ${output}`))));
      });
      return { child, line };
    };
    // Far below the 4 KB buffer and the process stays up: only the periodic flush can deliver it.
    const idle = run("stay");
    try {
      expect(await idle.line).toMatchObject({ msg: "request completed", url: "/api/logged", status: 404 });
    } finally {
      idle.child.kill();
    }
    const exiting = run("exit");
    expect(await exiting.line).toMatchObject({ msg: "request completed", url: "/api/logged" });
  }, 60_000); // two child processes that each load the source through tsx: seconds apiece on a loaded CI machine

  it("the server logger censors secret fields wherever they are logged", () => {
    const output = capture();
    const logger = createServerLogger({ destination: output.destination });
    logger.info({ req: { headers: { authorization: "Bearer x-secret-1", "set-cookie": "a=x-secret-2" } }, password: "x-secret-3" }, "test");
    expect(output.text()).not.toMatch(/x-secret/);
    expect(output.text()).toContain("[REDACTED]");
  });
});
