import { request as httpRequest } from "node:http";
import type { BaseServerAdapter, Runtime, ServerAdapterConfig } from "@conduit-ai/server-core";
import { afterEach, describe } from "vitest";
import { ADAPTERS, type AdapterUnderTest } from "./adapters.js";

export interface RunningServer {
  adapter: BaseServerAdapter<unknown>;
  /** `http://127.0.0.1:PORT` + path. */
  url(path: string): string;
  port: number;
}

export interface StartOptions {
  config?: ServerAdapterConfig;
  runtime?: Runtime;
  /** Registers routes and middleware before start. */
  setup?: (adapter: BaseServerAdapter<unknown>) => void | Promise<void>;
  /** Leave the server unstarted (lifecycle tests start it themselves). */
  noStart?: boolean;
}

/** Quiet defaults for tests: ephemeral loopback port, no request logs. */
export const TEST_CONFIG: ServerAdapterConfig = {
  port: 0,
  host: "127.0.0.1",
  logging: { enabled: false },
};

/**
 * Declares a describe block per adapter and hands the body a `start()` that boots that
 * adapter on an ephemeral loopback port; servers still running after a test are stopped.
 *
 * @example
 * forEachAdapter("envelopes", ({ start }) => {
 *   it("wraps data", async () => { const server = await start({ setup: (a) => a.registerRoute(...) }); ... });
 * });
 */
export function forEachAdapter(
  title: string,
  body: (helpers: { framework: AdapterUnderTest["framework"]; start: (options?: StartOptions) => Promise<RunningServer> }) => void,
): void {
  describe.each(ADAPTERS)(`${title} [$framework]`, (adapterUnderTest) => {
    const running: BaseServerAdapter<unknown>[] = [];
    afterEach(async () => {
      for (const adapter of running.splice(0)) {
        if (adapter.getLifecycleState() === "running") await adapter.stop().catch(() => undefined);
      }
    });
    const start = async (options: StartOptions = {}): Promise<RunningServer> => {
      const adapter = adapterUnderTest.create(options.runtime, { ...TEST_CONFIG, ...options.config });
      running.push(adapter);
      await options.setup?.(adapter);
      if (!options.noStart) await adapter.start();
      const port = () => adapter.address()?.port ?? 0;
      return {
        adapter,
        get port() {
          return port();
        },
        url: (path: string) => `http://127.0.0.1:${port()}${path}`,
      };
    };
    body({ framework: adapterUnderTest.framework, start });
  });
}

export interface RawHttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request with Node's own client, for what `fetch` normalizes away: raw paths
 * (`%`-escapes, `..`), exact headers, HEAD bodies, keep-alive control.
 */
export function rawRequest(
  port: number,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    agent?: import("node:http").Agent | false;
  },
): Promise<RawHttpResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path,
        headers: options.headers,
        agent: options.agent ?? false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
