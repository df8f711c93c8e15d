import { type IncomingMessage, type Server, createServer, get } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { readWhole } from "./body-tap.js";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A real answer from a loopback server that writes `parts` and then ends (or, with `cut`, drops the socket). */
async function answer(parts: string[], cut = false): Promise<IncomingMessage> {
  server = createServer((_request, response) => {
    const length = parts.join("").length + (cut ? 10 : 0);
    response.writeHead(200, { "content-type": "application/json", "content-length": String(length) });
    let index = 0;
    const next = () => {
      const part = parts[index++];
      if (part !== undefined) response.write(part, () => setTimeout(next, 5));
      else if (cut) response.socket?.destroy();
      else response.end();
    };
    next();
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => get({ host: "127.0.0.1", port, agent: false }, resolve).on("error", reject));
}

describe("readWhole", () => {
  it("reads an answer of known length whole, however many chunks it came in", async () => {
    const parts = ['{"type":"message",', '"usage":{"input_tokens":3}', "}"];
    expect((await readWhole(await answer(parts))).toString()).toBe(parts.join(""));
  });

  it("rejects an answer cut before its end instead of passing a truncated body on", async () => {
    await expect(readWhole(await answer(['{"type":"mess'], true))).rejects.toThrow();
  });
});
