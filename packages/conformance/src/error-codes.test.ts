import { connect } from "node:net";
import { type RouteDefinition, ServerAdapterError } from "@conduit-ai/server-core";
import { type WebSocketConnectionHandler, attachWebSocket } from "@conduit-ai/websocket";
import { expect, it, vi } from "vitest";
import WebSocket from "ws";
import { z } from "zod";
import { forEachAdapter, sleep } from "./harness.js";
import { rawExchange } from "./raw-socket.js";

/** The code a call threw with (undefined when it did not throw). */
function codeOf(call: () => unknown): string | undefined {
  try {
    call();
  } catch (error) {
    return ServerAdapterError.isInstance(error) ? error.code : `not a server error: ${String(error)}`;
  }
  return undefined;
}

async function rejectionOf(promise: Promise<unknown>): Promise<ServerAdapterError> {
  try {
    await promise;
  } catch (error) {
    if (ServerAdapterError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

const handler = () => "ok";

forEachAdapter("error codes raised where their condition happens", ({ start }) => {
  it("INVALID_ROUTE: a bad method, path, handler or route middleware is refused at registration", async () => {
    const server = await start();
    const register = (route: Partial<RouteDefinition>) => () =>
      server.adapter.registerRoute({ method: "GET", path: "/fine", handler, ...route } as RouteDefinition);
    expect(codeOf(register({ method: "FETCH" as never }))).toBe("INVALID_ROUTE");
    expect(codeOf(register({ method: "get" as never }))).toBe("INVALID_ROUTE");
    expect(codeOf(register({ path: "/has space" }))).toBe("INVALID_ROUTE");
    expect(codeOf(register({ path: "/query?x=1" }))).toBe("INVALID_ROUTE");
    expect(codeOf(register({ path: "/items/:" }))).toBe("INVALID_ROUTE");
    expect(codeOf(register({ path: "/items/:id/sub/:id" }))).toBe("INVALID_ROUTE");
    expect(codeOf(register({ path: 42 as never }))).toBe("INVALID_ROUTE");
    expect(codeOf(register({ handler: "not a function" as never }))).toBe("INVALID_ROUTE");
    expect(codeOf(register({ middleware: [{ name: "broken" } as never] }))).toBe("INVALID_ROUTE");
    expect(codeOf(() => server.adapter.registerRouteGroup({ prefix: undefined as never, routes: [] }))).toBe("INVALID_ROUTE");
    expect(codeOf(() => server.adapter.registerMiddleware({ name: "no-handler" } as never))).toBe("INVALID_CONFIG");
    // Nothing half-registered: the path answers 404, and a good route still registers.
    expect((await fetch(server.url("/api/fine"))).status).toBe(404);
    expect(codeOf(register({}))).toBeUndefined();
    expect((await fetch(server.url("/api/fine"))).status).toBe(200);
  });

  it("SCHEMA_ERROR: a schema that is not a zod schema is refused; one that throws while validating is a 500", async () => {
    const server = await start();
    expect(
      codeOf(() => server.adapter.registerRoute({ method: "POST", path: "/a", handler, schema: { body: { type: "object" } as never } })),
    ).toBe("SCHEMA_ERROR");
    expect(codeOf(() => server.adapter.registerRoute({ method: "POST", path: "/b", handler, schema: "z.object()" as never }))).toBe(
      "SCHEMA_ERROR",
    );
    server.adapter.registerRoute({
      method: "POST",
      path: "/broken-schema",
      handler,
      schema: {
        body: z.object({ name: z.string() }).refine(() => {
          throw new Error("refinement exploded");
        }),
      },
    });
    const response = await fetch(server.url("/api/broken-schema"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"x"}',
    });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text).error.code).toBe("SCHEMA_ERROR");
    expect(text).not.toContain("exploded");
  });

  it("FRAMEWORK_INIT_FAILED: the framework app failing to build fails initialize() and start()", async () => {
    const server = await start({ noStart: true });
    const createApp = vi.spyOn(server.adapter as unknown as { createApp: () => unknown }, "createApp").mockImplementation(() => {
      throw new Error("framework refused");
    });
    const initializing = await rejectionOf(server.adapter.initialize());
    expect(initializing.code).toBe("FRAMEWORK_INIT_FAILED");
    expect(server.adapter.getLifecycleState()).toBe("error");
    expect((await rejectionOf(server.adapter.start())).code).toBe("FRAMEWORK_INIT_FAILED");
    createApp.mockRestore();
    await server.adapter.start();
    expect((await fetch(server.url("/health"))).status).toBe(200);
  });

  it("STOP_FAILED: a part failing to close fails stop() once everything else is closed", async () => {
    const server = await start();
    const port = server.port;
    const errors: unknown[] = [];
    server.adapter.on("error", (event) => errors.push(event));
    const unregister = server.adapter.onBeforeClose(() => {
      throw new Error("surface refused to close");
    });
    const failure = await rejectionOf(server.adapter.stop());
    expect(failure).toMatchObject({ code: "STOP_FAILED", statusCode: 500 });
    expect(server.adapter.getLifecycleState()).toBe("error");
    expect(errors.length).toBeGreaterThan(0);
    // The HTTP server is closed all the same.
    const refused = await new Promise<boolean>((resolve) =>
      connect(port, "127.0.0.1")
        .once("error", () => resolve(true))
        .once("connect", () => resolve(false)),
    );
    expect(refused).toBe(true);
    unregister();
    await server.adapter.start();
    expect((await fetch(server.url("/health"))).status).toBe(200);
  });

  it("WEBSOCKET_CONNECTION_FAILED: a broken handshake is refused in the envelope", async () => {
    const server = await start({ setup: (adapter) => void attachWebSocket(adapter) });
    const key = "dGhlIHNhbXBsZSBub25jZQ==";
    const broken = [
      [
        "bad key",
        `GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n`,
        400,
      ],
      [
        "bad version",
        `GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 99\r\nSec-WebSocket-Key: ${key}\r\n\r\n`,
        400,
      ],
      [
        "bad method",
        `POST /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\nContent-Length: 0\r\n\r\n`,
        405,
      ],
    ] as const;
    for (const [name, bytes, status] of broken) {
      const answer = await rawExchange(server.port, bytes);
      expect(answer.status, name).toBe(status);
      expect(JSON.parse(answer.body).error.code, name).toBe("WEBSOCKET_CONNECTION_FAILED");
    }
  });

  it("WEBSOCKET_ERROR: a protocol violation on an open socket reaches onError as WEBSOCKET_ERROR, and the socket closes", async () => {
    const errors: unknown[] = [];
    const connectionHandler: WebSocketConnectionHandler = { onError: (_connection, error) => void errors.push(error) };
    const server = await start({ setup: (adapter) => void attachWebSocket(adapter, { connectionHandler }) });
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws`);
    await new Promise((resolve) => socket.once("open", resolve));
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    // An unmasked text frame: clients must mask (RFC 6455 §5.1).
    (socket as unknown as { _socket: import("node:net").Socket })._socket.write(Buffer.from([0x81, 0x02, 0x68, 0x69]));
    expect(await closed).toBe(1002);
    for (let attempt = 0; attempt < 50 && errors.length === 0; attempt++) await sleep(10);
    expect(errors[0]).toMatchObject({ code: "WEBSOCKET_ERROR", category: "WEBSOCKET" });
  });
});
