import { createAuthFromConfig, createStaticCredentialValidator } from "@conduit-ai/auth";
import type { DataStreamEvent, GenerateRequest, Runtime, RuntimeCallContext } from "@conduit-ai/server-core";
import { type AttachWebSocketOptions, type ConduitWebSocketServer, attachWebSocket } from "@conduit-ai/websocket";
import { expect, it } from "vitest";
import WebSocket from "ws";
import { createContractRuntime } from "./fixtures/contract-runtime.js";
import { forEachAdapter, type RunningServer, type StartOptions, sleep } from "./harness.js";

interface ServerMessage {
  type: string;
  id: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: assertions read arbitrary payload fields of parsed JSON
  payload: any;
}

/** A real `ws` client that records every message and lets a test wait for one. */
class TestClient {
  readonly messages: ServerMessage[] = [];
  private waiters: Array<() => void> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      this.messages.push(JSON.parse(String(data)));
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  }

  send(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  async next(predicate: (message: ServerMessage) => boolean, timeoutMs = 3000): Promise<ServerMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`No matching message; got ${JSON.stringify(this.messages)}`);
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), sleep(50)]);
    }
  }
}

function connect(
  server: RunningServer,
  options: { path?: string; headers?: Record<string, string>; autoPong?: boolean } = {},
): Promise<TestClient> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}${options.path ?? "/ws"}`, {
      headers: options.headers,
      autoPong: options.autoPong ?? true,
    });
    const client = new TestClient(socket);
    socket.once("open", () => resolve(client));
    socket.once("unexpected-response", (_request, response) =>
      reject(Object.assign(new Error(`HTTP ${response.statusCode}`), { status: response.statusCode })),
    );
    socket.once("error", reject);
  });
}

async function refusalStatus(server: RunningServer, options: Parameters<typeof connect>[1] = {}): Promise<number | undefined> {
  try {
    const client = await connect(server, options);
    client.socket.close();
    return undefined;
  } catch (error) {
    return (error as { status?: number }).status;
  }
}

/** The contract runtime plus a slow stream ("forever") that records its signal. */
function createTestRuntime() {
  const base = createContractRuntime();
  const seen: { streamSignals: AbortSignal[] } = { streamSignals: [] };
  const runtime: Runtime = {
    ...base,
    async generate(request: GenerateRequest, context?: RuntimeCallContext) {
      if (request.input?.text === "slow") await sleep(300);
      return base.generate(request, context);
    },
    stream(request: GenerateRequest, context: RuntimeCallContext = {}): AsyncIterable<DataStreamEvent> {
      if (request.input?.text !== "forever") return base.stream(request, context);
      if (context.signal) seen.streamSignals.push(context.signal);
      return (async function* () {
        yield { type: "text-start", id: "t", timestamp: Date.now(), data: {} } satisfies DataStreamEvent;
        while (!context.signal?.aborted) {
          yield { type: "text-delta", id: "t", timestamp: Date.now(), data: { delta: "." } } satisfies DataStreamEvent;
          await sleep(10);
        }
      })();
    },
  };
  return { runtime, seen };
}

forEachAdapter("websocket", ({ start }) => {
  async function startWithSocket(options: Partial<AttachWebSocketOptions> = {}, startOptions: StartOptions = {}) {
    const { runtime, seen } = createTestRuntime();
    let surface!: ConduitWebSocketServer;
    const server = await start({
      ...startOptions,
      setup: (adapter) => {
        surface = attachWebSocket(adapter, { runtime, ...options });
      },
    });
    return { server, surface, seen };
  }

  it("connects, greets, answers generate / stream / tool_call, echoing ids", async () => {
    const { server } = await startWithSocket();
    const client = await connect(server);
    const connected = await client.next((message) => message.type === "connected");
    expect(connected.payload.connectionId).toBe(connected.id);

    client.send({ type: "generate", id: "g1", payload: { input: { text: "hello there" } } });
    const result = await client.next((message) => message.type === "result");
    expect(result).toMatchObject({ id: "g1", payload: { content: "echo: hello there", provider: "test" } });

    client.send({ type: "stream", id: "s1", payload: { input: { text: "one two" } } });
    const finish = await client.next((message) => message.type === "stream-event" && message.payload.type === "finish");
    const events = client.messages
      .filter((message) => message.type === "stream-event" && message.id === "s1")
      .map((message) => message.payload.type);
    expect(events).toEqual(["text-start", "text-delta", "text-delta", "text-delta", "text-end", "finish"]);
    expect(finish.payload.data.reason).toBe("stop");

    client.send({ type: "tool_call", id: "t1", payload: { name: "add", arguments: { a: 2, b: 3 } } });
    expect(await client.next((message) => message.type === "tool-result")).toMatchObject({ id: "t1", payload: { name: "add", result: 5 } });
    client.send({ type: "tool_call", id: "t2", payload: { name: "nope", arguments: {} } });
    expect((await client.next((message) => message.id === "t2")).payload.code).toBe("TOOL_NOT_FOUND");
    client.socket.close();
  });

  it("reports invalid JSON, unknown types and bad payloads as error messages and stays usable", async () => {
    const { server } = await startWithSocket();
    const client = await connect(server);
    client.send("{not json");
    expect((await client.next((message) => message.type === "error")).payload.code).toBe("VALIDATION_ERROR");
    client.send({ type: "teleport", id: "u1", payload: {} });
    expect(await client.next((message) => message.id === "u1")).toMatchObject({ type: "error", payload: { code: "UNKNOWN_MESSAGE_TYPE" } });
    client.send({ type: "generate", id: "b1", payload: { temperature: "hot" } });
    expect(await client.next((message) => message.id === "b1")).toMatchObject({ type: "error", payload: { code: "VALIDATION_ERROR" } });
    client.send({ type: "tool_call", id: "b2", payload: { arguments: {} } });
    expect(await client.next((message) => message.id === "b2")).toMatchObject({ type: "error", payload: { code: "VALIDATION_ERROR" } });
    client.socket.send(Buffer.from([1, 2, 3]));
    client.send({ type: "generate", id: "ok", payload: { input: { text: "still here" } } });
    expect((await client.next((message) => message.id === "ok")).payload.content).toBe("echo: still here");
    client.socket.close();
  });

  it("a handler error becomes an error message without the internal detail", async () => {
    const { server, surface } = await startWithSocket();
    surface.on("explode", () => {
      throw new Error("internal secret");
    });
    const client = await connect(server);
    client.send({ type: "explode", id: "x1" });
    const error = await client.next((message) => message.id === "x1");
    expect(error).toMatchObject({ type: "error", payload: { code: "HANDLER_ERROR" } });
    expect(JSON.stringify(error)).not.toContain("internal secret");
    client.socket.close();
  });

  it("cancel aborts a running stream through the runtime's signal; so does a disconnect", async () => {
    const { server, seen } = await startWithSocket();
    const client = await connect(server);
    client.send({ type: "stream", id: "s1", payload: { input: { text: "forever" } } });
    await client.next((message) => message.type === "stream-event" && message.payload.type === "text-delta");
    client.send({ type: "cancel", id: "s1" });
    const finish = await client.next((message) => message.type === "stream-event" && message.payload.type === "finish");
    expect(finish.payload.data.reason).toBe("cancelled");
    expect(seen.streamSignals[0]?.aborted).toBe(true);

    client.send({ type: "stream", id: "s2", payload: { input: { text: "forever" } } });
    await client.next((message) => message.id === "s2" && message.payload.type === "text-delta");
    client.socket.terminate();
    const deadline = Date.now() + 2000;
    while (!seen.streamSignals[1]?.aborted && Date.now() < deadline) await sleep(20);
    expect(seen.streamSignals[1]?.aborted).toBe(true);
  });

  it("closes a too-large message with 1009", async () => {
    const { server } = await startWithSocket({ maxMessageSize: 1024 });
    const client = await connect(server);
    client.send({ type: "generate", payload: { input: { text: "x".repeat(2000) } } });
    expect((await client.closed).code).toBe(1009);
  });

  it("refuses one connection over maxConnections with 503, and other paths with 404", async () => {
    const { server } = await startWithSocket({ maxConnections: 2 });
    const first = await connect(server);
    const second = await connect(server);
    expect(await refusalStatus(server)).toBe(503);
    expect(await refusalStatus(server, { path: "/elsewhere" })).toBe(404);
    first.socket.close();
    await first.closed;
    await sleep(50);
    const third = await connect(server);
    await third.next((message) => message.type === "connected");
    second.socket.close();
    third.socket.close();
  });

  it("authenticates the upgrade: refused with 401 and no socket, accepted with the user", async () => {
    const validate = (token: string) => {
      if (token === "throws") throw new Error("validator down");
      return token === "good-token" || token === "alice:wonderland" ? { id: "user-1", roles: ["admin"] } : null;
    };
    const { server } = await startWithSocket({ auth: { strategy: "bearer", validate } });
    expect(await refusalStatus(server)).toBe(401);
    expect(await refusalStatus(server, { headers: { authorization: "Bearer bad" } })).toBe(401);
    expect(await refusalStatus(server, { headers: { authorization: "Bearer throws" } })).toBe(401);
    const client = await connect(server, { headers: { authorization: "Bearer good-token" } });
    expect((await client.next((message) => message.type === "connected")).payload.userId).toBe("user-1");
    client.socket.close();
    await server.adapter.stop();

    const basic = await startWithSocket({ auth: { strategy: "basic", validate } });
    const encoded = Buffer.from("alice:wonderland").toString("base64");
    expect(
      await refusalStatus(basic.server, { headers: { authorization: `Basic ${Buffer.from("alice:wrong").toString("base64")}` } }),
    ).toBe(401);
    (await connect(basic.server, { headers: { authorization: `Basic ${encoded}` } })).socket.close();
    await basic.server.adapter.stop();

    const slow = await startWithSocket({
      auth: { strategy: "apiKey", timeoutMs: 50, validate: () => sleep(500).then(() => ({ id: "late" })) },
    });
    expect(await refusalStatus(slow.server, { headers: { "x-api-key": "k" } })).toBe(401);
  });

  it("reads the upgrade's credential from the HTTP auth's custom headerName, by the same rule", async () => {
    const auth = { type: "api-key", headerName: "x-custom-key", keys: { "custom-key-1": { id: "custom" } } } as const;
    const check = createStaticCredentialValidator(auth);
    if (!check) throw new Error("auth is enabled");
    const { server } = await startWithSocket({
      auth: {
        strategy: "custom",
        extractToken: (request) => check.extractCredential(request),
        validate: (credential) => {
          const user = check.validate(credential);
          return user ? { ...user } : null;
        },
      },
    });
    for (const middleware of createAuthFromConfig(auth)) server.adapter.registerMiddleware(middleware);
    expect((await fetch(server.url("/api/nowhere"), { headers: { "x-custom-key": "custom-key-1" } })).status).toBe(404);
    expect((await fetch(server.url("/api/nowhere"), { headers: { "x-api-key": "custom-key-1" } })).status).toBe(401);
    const accepted = await connect(server, { headers: { "x-custom-key": "custom-key-1" } });
    expect((await accepted.next((message) => message.type === "connected")).payload.userId).toBe("custom");
    accepted.socket.close();
    expect(await refusalStatus(server, { headers: { "x-api-key": "custom-key-1" } })).toBe(401);

    // The websocket package's own strategies honor headerName the same way.
    const own = await startWithSocket({
      auth: { strategy: "bearer", headerName: "x-access-token", validate: (token) => (token === "tok-1" ? { id: "t" } : null) },
    });
    const bare = await connect(own.server, { headers: { "x-access-token": "tok-1" } });
    bare.socket.close();
    expect(await refusalStatus(own.server, { headers: { authorization: "Bearer tok-1" } })).toBe(401);
  });

  it("pings and terminates a connection that does not answer within pongTimeout", async () => {
    const { server } = await startWithSocket({ pingInterval: 50, pongTimeout: 50 });
    const silent = await connect(server, { autoPong: false });
    const healthy = await connect(server);
    const closed = await Promise.race([silent.closed, sleep(1500).then(() => undefined)]);
    expect(closed?.code).toBe(1006);
    expect(healthy.socket.readyState).toBe(WebSocket.OPEN);
    healthy.socket.close();
  });

  it("graceful shutdown lets an in-flight generate finish, then closes with 1001; restart re-attaches", async () => {
    const { server } = await startWithSocket({}, { config: { shutdown: { drainTimeoutMs: 2000, gracefulShutdownTimeoutMs: 4000 } } });
    const client = await connect(server);
    await client.next((message) => message.type === "connected");
    client.send({ type: "generate", id: "slow-1", payload: { input: { text: "slow" } } });
    await sleep(30);
    await server.adapter.stop();
    const result = client.messages.find((message) => message.id === "slow-1");
    expect(result?.payload.content).toBe("echo: slow");
    expect((await client.closed).code).toBe(1001);

    await server.adapter.start();
    const again = await connect(server);
    await again.next((message) => message.type === "connected");
    again.socket.close();
  });

  it("graceful shutdown aborts a stream still running at the drain timeout and closes with 1001", async () => {
    const { server, seen } = await startWithSocket({}, { config: { shutdown: { drainTimeoutMs: 200, gracefulShutdownTimeoutMs: 3000 } } });
    const client = await connect(server);
    client.send({ type: "stream", id: "s1", payload: { input: { text: "forever" } } });
    await client.next((message) => message.id === "s1" && message.payload.type === "text-delta");
    const started = Date.now();
    await server.adapter.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await client.closed).code).toBe(1001);
    expect(seen.streamSignals[0]?.aborted).toBe(true);
  });
});
