import { type Server, createServer } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ConduitWebSocketServer } from "./websocket-server.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(surface: ConduitWebSocketServer): Promise<number> {
  const server = createServer((_request, response) => response.end("http"));
  servers.push(server);
  surface.attach(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

describe("ConduitWebSocketServer on a bare Node server", () => {
  it("routes by type, calls the connection hooks with every message kind", async () => {
    const kinds: string[] = [];
    const closes: number[] = [];
    const surface = new ConduitWebSocketServer({
      connectionHandler: {
        onOpen: () => void kinds.push("open"),
        onMessage: (_connection, message) => void kinds.push(message.kind),
        onClose: (_connection, event) => void closes.push(event.code),
      },
    });
    surface.on("echo", (message, connection) => connection.send({ type: "result", id: message.id ?? null, payload: message.payload }));
    const port = await listen(surface);
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    const messages: Array<{ type: string; id: string | null; payload: unknown }> = [];
    socket.on("message", (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve) => socket.once("open", resolve));
    socket.send(JSON.stringify({ type: "echo", id: "e1", payload: [1, 2] }));
    socket.send(Buffer.from([0xff]), { binary: true });
    socket.ping();
    const pong = new Promise((resolve) => socket.once("pong", resolve));
    await pong;
    while (messages.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(messages[0]?.type).toBe("connected");
    expect(messages.find((message) => message.id === "e1")).toEqual({ type: "result", id: "e1", payload: [1, 2] });
    expect(messages.some((message) => message.type === "error")).toBe(true);
    socket.close(1000);
    await new Promise((resolve) => socket.once("close", resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(kinds).toEqual(expect.arrayContaining(["open", "text", "binary", "ping"]));
    expect(closes).toEqual([1000]);
    expect(surface.connections.size).toBe(0);
  });

  it("a throwing hook is logged, never fatal", async () => {
    const surface = new ConduitWebSocketServer({
      connectionHandler: {
        onOpen: () => {
          throw new Error("hook failed");
        },
      },
    });
    const port = await listen(surface);
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    const first = await new Promise<string>((resolve) => socket.once("message", (data) => resolve(String(data))));
    expect(JSON.parse(first).type).toBe("connected");
    socket.close();
  });
});
