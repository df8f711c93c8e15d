import { type IncomingMessage, type ServerResponse, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { OutgoingResponse } from "../core/pipeline/request-handler.js";
import { writeNodeResponse } from "./node-bridge.js";

interface Trace {
  calls: string[];
  done: boolean;
}

/** A real server whose response methods are traced (the real ones still do the work). */
async function serve(body: AsyncIterable<string>, trace: Trace): Promise<{ port: number; close: () => void }> {
  const server = createServer((_request: IncomingMessage, response: ServerResponse) => {
    for (const name of ["cork", "uncork", "write"] as const) {
      const original = response[name].bind(response) as (...args: unknown[]) => unknown;
      (response as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        trace.calls.push(name);
        return original(...args);
      };
    }
    const outgoing: OutgoingResponse = {
      status: 200,
      headers: { "content-type": "text/event-stream" },
      body,
      streaming: true,
      done: () => {
        trace.done = true;
      },
    };
    void writeNodeResponse(response, outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

function fetchText(port: number, readSlowly = false): Promise<string> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      if (readSlowly) {
        // Let the server's socket fill up first, so writes report backpressure.
        response.pause();
        setTimeout(() => response.resume(), 200);
      }
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () => resolve(text));
    })
      .on("error", reject)
      .end();
  });
}

describe("writeNodeResponse streaming", () => {
  it("sends a burst of chunks made in one event-loop turn in one corked write", async () => {
    async function* burst() {
      for (let index = 0; index < 200; index++) yield `data: ${index}\n\n`;
    }
    const trace: Trace = { calls: [], done: false };
    const server = await serve(burst(), trace);
    try {
      const text = await fetchText(server.port);
      expect(text.split("\n\n").filter(Boolean)).toHaveLength(200);
      expect(trace.calls.filter((call) => call === "write")).toHaveLength(200);
      // Every write of the burst happened while corked: one cork, one uncork around them.
      expect(trace.calls.filter((call) => call === "cork").length).toBeLessThanOrEqual(2);
      expect(trace.calls[0]).toBe("cork");
      expect(trace.done).toBe(true);
    } finally {
      server.close();
    }
  });

  it("keeps backpressure working while corked: a slow reader gets every chunk", async () => {
    const chunk = `data: ${"x".repeat(16 * 1024)}\n\n`;
    async function* large() {
      for (let index = 0; index < 400; index++) yield chunk;
    }
    const trace: Trace = { calls: [], done: false };
    const server = await serve(large(), trace);
    try {
      const text = await fetchText(server.port, true);
      expect(text.length).toBe(chunk.length * 400);
      expect(trace.done).toBe(true);
    } finally {
      server.close();
    }
  }, 15_000);

  it("still sends chunks that arrive one per event-loop turn without delay", async () => {
    async function* slow() {
      for (let index = 0; index < 5; index++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        yield `data: ${index}\n\n`;
      }
    }
    const trace: Trace = { calls: [], done: false };
    const server = await serve(slow(), trace);
    try {
      const started = performance.now();
      const text = await fetchText(server.port);
      expect(text.split("\n\n").filter(Boolean)).toHaveLength(5);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(trace.calls.filter((call) => call === "cork")).toHaveLength(5);
    } finally {
      server.close();
    }
  });
});
