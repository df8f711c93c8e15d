import { type Server, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ServerAdapterError } from "../../errors/server-adapter-error.js";
import { readRawRequestBody } from "./body-parser.js";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A loopback server answering what reading its request body gave: the bytes, or the error's status. */
async function start(limit: number): Promise<number> {
  server = createServer((incoming, outgoing) => {
    readRawRequestBody({ kind: "stream", stream: incoming }, { limit, contentLength: undefined }).then(
      (bytes) => outgoing.writeHead(200).end(bytes ?? ""),
      (error: unknown) => outgoing.writeHead(ServerAdapterError.isInstance(error) ? error.statusCode : 500).end(),
    );
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** Sends `parts` as a chunked body, a few ms apart (several reads on the server's side). */
function send(port: number, parts: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: "127.0.0.1", port, method: "POST", agent: false }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on("error", reject);
    let index = 0;
    const next = () => {
      const part = parts[index++];
      if (part === undefined) outgoing.end();
      else outgoing.write(part, () => setTimeout(next, 5));
    };
    next();
  });
}

describe("readRawRequestBody over a Node request", () => {
  it("gives the body's bytes exactly, however many chunks they came in", async () => {
    const port = await start(1024);
    expect(await send(port, ['{"model":', '"claude"', "}"])).toEqual({ status: 200, body: '{"model":"claude"}' });
  });

  it("past the limit answers 413 on the same socket, without reading the rest", async () => {
    const port = await start(8);
    expect((await send(port, ["0123456", "789abcdef", "more"])).status).toBe(413);
  });
});
