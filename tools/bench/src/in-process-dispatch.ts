/**
 * What the in-process micro benches (`micro-core`, `micro-stack`, `micro-tracing`) share: a
 * stand-in for Node's request/response pair (the bytes go nowhere) and the CPU-time loop that
 * dispatches a GET through an adapter's handler and the Node bridge.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { handleNodeRequest } from "@conduit-ai/server-core/node";

export type NodeHandler = Parameters<typeof handleNodeRequest>[0];

/** The least a Node response needs for the bridge. */
export class StandInResponse {
  headersSent = false;
  destroyed = false;
  writableFinished = false;
  closed = false;
  statusCode = 200;
  setHeader(): void {}
  writeHead(status: number): this {
    this.statusCode = status;
    return this;
  }
  end(): void {
    this.headersSent = true;
    this.writableFinished = true;
  }
  once(): this {
    return this;
  }
  off(): this {
    return this;
  }
}

/** One GET of `path` through the handler into a stand-in response; resolves to its status. */
export async function dispatchGet(handler: NodeHandler, path: string, headers: Record<string, string>): Promise<number> {
  const route = handler.routes.routes().find((item) => item.fullPath === path);
  const request = { method: "GET", url: path, headers, socket: { remoteAddress: "127.0.0.1" }, readableEnded: true };
  const response = new StandInResponse();
  await handleNodeRequest(handler, request as unknown as IncomingMessage, response as unknown as ServerResponse, route);
  return response.statusCode;
}

/**
 * CPU µs per request over `seconds` of CPU time (not wall time: on a shared machine the process is
 * often off the CPU). Yields to the event loop between batches, as a server would, so timers and
 * sockets (an exporter's) run.
 */
export async function cpuPerRequest(handler: NodeHandler, path: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const started = process.cpuUsage();
  const cpu = () => {
    const used = process.cpuUsage(started);
    return used.user + used.system;
  };
  let count = 0;
  while (cpu() < seconds * 1e6) {
    for (let index = 0; index < 100; index++) {
      const status = await dispatchGet(handler, path, headers);
      if (status !== 200) throw new Error(`status ${status}`);
    }
    count += 100;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return cpu() / count;
}
