/**
 * The client side of `bench:provider-streams`: opens `POST /api/agent/stream` calls in batches
 * and notes when each one answered and when its first token arrived. Kept apart from the bench
 * script, which only orders the phases and prints the figures.
 */
import { type ClientRequest, request } from "node:http";

/** Where the streams go and how fast they are opened. */
export interface StreamLoad {
  port: number;
  /** The JSON request body of every stream. */
  body: string;
  /** Requests started per batch. */
  batch: number;
  /** ms between batches. */
  everyMs: number;
}

export interface Stream {
  request: ClientRequest;
  /** ms from the start of the load until the response headers / the first text-delta. */
  startedAt?: number;
  streamingAt?: number;
  failed?: string;
}

/** Opens one stream; `onStreaming` fires once its first `text-delta` event arrived. */
function openStream(load: StreamLoad, origin: number, onStreaming: () => void): Stream {
  const stream = {} as Stream;
  stream.request = request(
    {
      host: "127.0.0.1",
      port: load.port,
      path: "/api/agent/stream",
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json" },
    },
    (response) => {
      if (response.statusCode !== 200) {
        stream.failed = `status ${response.statusCode}`;
        response.resume();
        onStreaming();
        return;
      }
      stream.startedAt = performance.now() - origin;
      response.setEncoding("utf8");
      let seen = "";
      const onData = (text: string) => {
        seen += text;
        if (seen.includes("event: text-delta")) {
          stream.streamingAt = performance.now() - origin;
          response.off("data", onData);
          response.resume();
          onStreaming();
        } else if (seen.includes("event: error")) {
          stream.failed = seen.slice(seen.indexOf("event: error"), seen.indexOf("event: error") + 200);
          response.off("data", onData);
          onStreaming();
        }
      };
      response.on("data", onData);
    },
  );
  stream.request.on("error", (error) => {
    if (stream.streamingAt === undefined && stream.failed === undefined) {
      stream.failed = error.message;
      onStreaming();
    }
  });
  stream.request.end(load.body);
  return stream;
}

/** Opens `count` streams in batches and resolves when every one streams or failed (or after `limitMs`). */
export function openStreams(load: StreamLoad, count: number, limitMs: number): Promise<{ streams: Stream[]; origin: number }> {
  const origin = performance.now();
  const streams: Stream[] = [];
  return new Promise((resolve) => {
    let pending = count;
    const settle = () => {
      if (--pending === 0) resolve({ streams, origin });
    };
    const timer = setTimeout(() => resolve({ streams, origin }), limitMs);
    timer.unref();
    const batch = (from: number) => {
      for (let index = from; index < Math.min(from + load.batch, count); index++) streams.push(openStream(load, origin, settle));
      if (from + load.batch < count) setTimeout(() => batch(from + load.batch), load.everyMs);
    };
    batch(0);
  });
}

/** Drops every stream's connection (the client going away). */
export function closeAll(streams: Stream[]): void {
  for (const stream of streams) stream.request.destroy();
}
