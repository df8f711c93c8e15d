import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type AssembledServer, assembleServer } from "./server-assembly.js";

/** Resolves with the upgrade's outcome: "open", or the HTTP status it was refused with. */
function upgrade(port: number, headers: Record<string, string>): Promise<"open" | number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers });
    socket.once("open", () => {
      socket.close();
      resolve("open");
    });
    socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    socket.once("error", () => resolve(0));
  });
}

describe("assembleServer: one credential rule for HTTP and the WebSocket upgrade", () => {
  let assembled: AssembledServer | undefined;
  afterEach(async () => {
    if (assembled?.server.getLifecycleState() === "running") await assembled.server.stop();
    await assembled?.close();
    assembled = undefined;
  });

  const configs = {
    "api-key on a custom header": {
      auth: { type: "api-key", headerName: "x-custom-key", keys: { "key-123": { id: "k" } } },
      good: { "x-custom-key": "key-123" },
      wrongHeader: { "x-api-key": "key-123" },
    },
    "bearer on a custom header (bare token)": {
      auth: { type: "bearer", headerName: "x-access-token", tokens: { "tok-123": { id: "t" } } },
      good: { "x-access-token": "tok-123" },
      wrongHeader: { authorization: "Bearer tok-123" },
    },
    "basic on Authorization": {
      auth: { type: "basic", users: { ops: { password: "pw" } } },
      good: { authorization: `Basic ${Buffer.from("ops:pw").toString("base64")}` },
      wrongHeader: { "x-api-key": "ops:pw" },
    },
  } as const;

  for (const [name, { auth, good, wrongHeader }] of Object.entries(configs)) {
    it(`${name}: the upgrade accepts exactly what HTTP accepts`, async () => {
      assembled = await assembleServer({
        framework: "hono",
        server: { port: 0, host: "127.0.0.1", logging: { enabled: false } },
        file: { auth },
      });
      await assembled.server.start();
      const port = assembled.server.getStatus().port as number;
      const http = async (headers: Record<string, string>) => (await fetch(`http://127.0.0.1:${port}/api/tools`, { headers })).status;
      expect(await http(good)).toBe(200);
      expect(await upgrade(port, good)).toBe("open");
      expect(await http(wrongHeader)).toBe(401);
      expect(await upgrade(port, wrongHeader)).toBe(401);
      expect(await upgrade(port, {})).toBe(401);
    });
  }
});
