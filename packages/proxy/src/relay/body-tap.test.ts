import { type IncomingMessage, type Server, createServer, get } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { readBounded, readUpTo, rejoin } from "./body-tap.js";

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

async function text(body: AsyncIterable<Uint8Array>): Promise<string> {
  let result = "";
  for await (const chunk of body) result += Buffer.from(chunk).toString();
  return result;
}

describe("readUpTo over a Node answer's events", () => {
  const parts = ['{"type":"message",', '"content":[{"type":"text","text":"hello"}],', '"usage":{"input_tokens":3}', "}"];

  it("reads an answer within the limit whole, however many chunks it came in", async () => {
    const read = await readUpTo(await answer(parts), 1024);
    expect("whole" in read && read.whole.toString()).toBe(parts.join(""));
  });

  it("past the limit hands back what it read and the untouched rest, one stream again", async () => {
    const read = await readUpTo(await answer(parts), 20);
    expect("head" in read).toBe(true);
    if (!("head" in read)) return;
    expect(Buffer.concat(read.head).byteLength).toBeGreaterThan(20);
    expect(await text(rejoin(read))).toBe(parts.join(""));
  });

  it("rejects an answer cut before its end instead of passing a truncated body on", async () => {
    await expect(readUpTo(await answer(['{"type":"mess'], true), 1024)).rejects.toThrow();
  });
});

describe("readBounded over a Node answer's events", () => {
  const parts = ['{"type":"error",', '"error":{"type":"rate_limit_error",', '"message":"slow down"}}'];

  it("reads an error answer whole, however many chunks it came in", async () => {
    expect((await readBounded(await answer(parts))).toString()).toBe(parts.join(""));
  });

  it("stops at the limit, keeping the chunks read so far, and destroys the rest", async () => {
    const response = await answer(parts);
    const read = await readBounded(response, 20);
    expect(read.toString()).toBe(parts.slice(0, 2).join(""));
    expect(response.destroyed).toBe(true);
  });

  it("rejects an answer cut before its end", async () => {
    await expect(readBounded(await answer(['{"type":"err'], true))).rejects.toThrow();
  });
});
