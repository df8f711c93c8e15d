import { SERVER_EVERYTHING_SCRIPT } from "@conduit-ai/fakes";
import { afterEach, describe, expect, it } from "vitest";
import { UpstreamConnection } from "./upstream-connection.js";

const connections: UpstreamConnection[] = [];
afterEach(async () => {
  for (const connection of connections.splice(0)) await connection.close();
});

function everything(timeoutMs = 10_000): UpstreamConnection {
  const connection = new UpstreamConnection({
    server: "everything",
    config: { command: process.execPath, args: [SERVER_EVERYTHING_SCRIPT, "stdio"] },
    timeoutMs,
    headers: async () => ({}),
    onNotification: () => undefined,
    onSession: () => undefined,
  });
  connections.push(connection);
  return connection;
}

describe("an upstream connection (server-everything over stdio)", () => {
  it("delivers every progress notification of a call, the last one sent right before the result included", async () => {
    const connection = everything();
    for (let round = 0; round < 5; round++) {
      const progress: unknown[] = [];
      await connection.request(
        "tools/call",
        { name: "trigger-long-running-operation", arguments: { duration: 0.02, steps: 4 } },
        { onprogress: (update) => void progress.push(update.progress) },
      );
      expect(progress).toEqual([1, 2, 3, 4]);
    }
  });

  it("a call that outlives the timeout is an error naming the server and the method", async () => {
    const connection = everything(300);
    await expect(
      connection.request("tools/call", { name: "trigger-long-running-operation", arguments: { duration: 2, steps: 1 } }),
    ).rejects.toMatchObject({
      code: -32001,
      message: 'MCP server "everything" did not answer tools/call within 300 ms',
      data: { server: "everything" },
    });
  });
});
