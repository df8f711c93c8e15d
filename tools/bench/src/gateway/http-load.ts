// Load for `bench:gateway`: keep-alive requests from this process, `concurrency` at a time, each read
// to its end. A request that does not answer 200 counts as failed (with its status), never as a sample.
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";

export interface Call {
  port: number;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadResult {
  latencies: number[];
  failures: Map<string, number>;
  bytes: number;
  seconds: number;
}

function once(call: Call, agent: Agent): Promise<{ ms: number; bytes: number; status: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port: call.port,
        path: call.path,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", ...call.headers },
      },
      (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.byteLength;
        });
        response.on("end", () => resolve({ ms: performance.now() - started, bytes, status: String(response.statusCode) }));
        response.on("error", () => resolve({ ms: 0, bytes, status: "reset" }));
      },
    );
    outgoing.on("error", (error) => resolve({ ms: 0, bytes: 0, status: (error as NodeJS.ErrnoException).code ?? "error" }));
    outgoing.end(call.body);
  });
}

/** `count` requests, `concurrency` at a time; `calls(i)` picks the i-th request (or one for all). */
export async function load(calls: Call | ((index: number) => Call), concurrency: number, count: number): Promise<LoadResult> {
  const pick = typeof calls === "function" ? calls : () => calls;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const result: LoadResult = { latencies: [], failures: new Map(), bytes: 0, seconds: 0 };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const answer = await once(pick(next++), agent);
        if (answer.status === "200") result.latencies.push(answer.ms);
        else result.failures.set(answer.status, (result.failures.get(answer.status) ?? 0) + 1);
        result.bytes += answer.bytes;
      }
    }),
  );
  agent.destroy();
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

/** "429 ×12, reset ×1" — what failed instead of answering. */
export function describeFailures(failures: Map<string, number>): string {
  return [...failures].map(([status, count]) => `${status} ×${count}`).join(", ");
}
