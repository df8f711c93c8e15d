import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { AuthorizationError } from "../errors/server-errors.js";
import type { ServerAdapterError } from "../errors/server-adapter-error.js";
import { createErrorHandlingMiddleware } from "./error-handling.js";
import { createLoggingMiddleware, createServerLogger } from "./logging/logging.js";
import { createTestApp } from "../testing/test-kit.js";

function collectingLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...chunk.toString().trim().split("\n"));
      callback();
    },
  });
  return { lines, logger: createServerLogger({ level: "debug", destination }) };
}

const routes = [
  {
    method: "GET" as const,
    path: "/crash",
    handler: () => {
      throw new Error("database password=hunter2 leaked in message");
    },
  },
  {
    method: "GET" as const,
    path: "/forbidden",
    handler: () => {
      throw new AuthorizationError();
    },
  },
];

describe("error handling middleware", () => {
  it("answers with the one envelope, calls onError, logs once, and hides internal messages", async () => {
    const seen: ServerAdapterError[] = [];
    const { lines, logger } = collectingLogger();
    const { adapter, request } = createTestApp({
      middleware: [createErrorHandlingMiddleware({ onError: (error) => void seen.push(error), logger })],
      routes,
    });
    const events: unknown[] = [];
    adapter.on("error", (event) => events.push(event));
    const response = await request({ url: "/api/crash" });
    expect(response.status).toBe(500);
    const body = response.json<{ error: Record<string, unknown>; metadata: { requestId: string } }>();
    expect(body.error).toMatchObject({ code: "HANDLER_ERROR", message: "Internal server error", category: "EXECUTION" });
    expect(body.error.requestId).toBe(body.metadata.requestId);
    expect(body.error.stack).toBeUndefined();
    expect(response.text).not.toContain("hunter2");
    expect(seen.map((error) => error.code)).toEqual(["HANDLER_ERROR"]);
    expect(events).toHaveLength(1);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ requestId: body.metadata.requestId, code: "HANDLER_ERROR", status: 500 });
  });

  it("includes the stack only when asked and survives a throwing hook", async () => {
    const { request } = createTestApp({
      middleware: [
        createErrorHandlingMiddleware({
          includeStack: true,
          logErrors: false,
          onError: () => {
            throw new Error("hook broke");
          },
        }),
      ],
      routes,
    });
    const response = await request({ url: "/api/forbidden" });
    expect(response.status).toBe(403);
    const body = response.json<{ error: { code: string; stack?: string } }>();
    expect(body.error.code).toBe("FORBIDDEN");
    expect(body.error.stack).toContain("AuthorizationError");
  });

  it("writes the request's error line with requestId once (the request logger already carries it)", async () => {
    const { lines, logger } = collectingLogger();
    const { request } = createTestApp({
      middleware: [createLoggingMiddleware({ logger }), createErrorHandlingMiddleware()],
      routes,
    });
    const response = await request({ url: "/api/crash" });
    const requestId = response.json<{ metadata: { requestId: string } }>().metadata.requestId;
    const failure = lines.find((line) => line.includes('"request failed"'));
    expect(failure).toBeDefined();
    // Once at the top level (the error object nested under `err` carries its own).
    const topLevel = (failure as string).slice(0, (failure as string).indexOf('"err":'));
    expect(topLevel.split('"requestId"').length).toBe(2);
    expect(JSON.parse(failure as string)).toMatchObject({ requestId, code: "HANDLER_ERROR", status: 500 });
  });
});
