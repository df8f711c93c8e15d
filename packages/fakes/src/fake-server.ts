import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./listen-on-loopback.js";

/**
 * How a fake vendor answers the next requests, whatever its wire format: a normal answer
 * (`text`; `tool` calls the `calculator` tool, `first-tool` the first tool the request declares),
 * the vendor's 401, 403 (`forbidden`), 429 (`retry-after: 7`) or 500 error, a stream `cut` after its first frame,
 * a stream that `stall`s after its first frame (a JSON call gets nothing), or no answer at all (`hang`).
 */
export type FakeScenario =
  | "text"
  | "tool"
  | "first-tool"
  | "unauthorized"
  | "forbidden"
  | "rate-limited"
  | "server-error"
  | "cut"
  | "stall"
  | "hang";

/** One request as a fake received it. */
export interface RecordedRequest {
  method: string;
  /** Path with its query. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON (`{}` when empty or not JSON). */
  body: Record<string, unknown>;
  /** The body's bytes. */
  raw: Buffer;
  /** Settles when the answer's connection closes: answered, cut, or abandoned by the client. */
  closed: Promise<void>;
}

/** What every fake vendor server has: its URL, what it received, its scenario and counters. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  scenario: FakeScenario;
  /** Answers under way (a held stream counts until it ends or its client leaves). */
  open: number;
  /** Answers whose connection closed before the fake ended them (the client went away, or a cut). */
  cancelled: number;
  close(): Promise<void>;
}

export type FakeHandler = (request: RecordedRequest, response: ServerResponse) => unknown;

/**
 * A loopback HTTP server that records every request and hands it to `handler`, except in the
 * `hang` scenario, where it accepts the request and never answers (a provider that hangs).
 *
 * @example
 * const fake = await startFakeServer((request, response) => sendJson(response, 200, { ok: true }));
 */
export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  const fake: FakeServer = { url: "", requests: [], scenario: "text", open: 0, cancelled: 0, close: async () => {} };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks);
      fake.open++;
      const closed = new Promise<void>((resolve) =>
        response.once("close", () => {
          fake.open--;
          if (!response.writableFinished) fake.cancelled++;
          resolve();
        }),
      );
      const recorded: RecordedRequest = {
        method: request.method ?? "GET",
        path: request.url ?? "/",
        headers: request.headers,
        body: parseJson(raw),
        raw,
        closed,
      };
      fake.requests.push(recorded);
      if (fake.scenario === "hang") return;
      Promise.resolve(handler(recorded, response)).catch(() => response.destroy());
    });
  });
  // Held streams may stay open for minutes (the bench): no server-side timeouts.
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  const { url, close } = await listenOnLoopback(server);
  fake.url = url;
  fake.close = close;
  return fake;
}

function parseJson(raw: Buffer): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw.toString("utf8"));
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(typeof body === "string" ? body : JSON.stringify(body));
}

export function startEventStream(response: ServerResponse, headers: Record<string, string> = {}): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...headers });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How `writeFrames` paces a stream and how it ends. */
export interface FramePacing {
  /** Milliseconds before each group of frames but the first. */
  gapMs?: number;
  /** Waits for `held` before writing the group at this index. */
  holdAt?: number;
  held?: Promise<void>;
  /** `end` (default) ends the answer; `cut` destroys the socket once the frames reached it; `stall` leaves it open. */
  ending?: "end" | "cut" | "stall";
}

/**
 * Writes a stream's frames, one group per write (a role chunk and the first token go out
 * together, as real providers send them), stopping when the client left; then ends, cuts or stalls.
 * Resolves with the number of groups written.
 */
export async function writeFrames(
  response: ServerResponse,
  groups: Array<Array<string | Buffer>>,
  pacing: FramePacing = {},
): Promise<number> {
  const ending = pacing.ending ?? "end";
  for (const [index, group] of groups.entries()) {
    if (index === pacing.holdAt) await pacing.held;
    if (index > 0 && pacing.gapMs) await sleep(pacing.gapMs);
    if (response.destroyed) return index;
    // Binary frames (AWS event streams) are written as bytes, text frames as one string.
    const bytes = group.some((frame) => typeof frame !== "string")
      ? Buffer.concat(group.map((frame) => (typeof frame === "string" ? Buffer.from(frame) : frame)))
      : group.join("");
    const last = index === groups.length - 1;
    // A cut body is destroyed only once its frames have reached the socket: the client sees a stream break off.
    if (last && ending === "cut") response.write(bytes, () => setTimeout(() => response.socket?.destroy(), 20));
    else if (last && ending === "end") response.end(bytes);
    else response.write(bytes);
  }
  if (groups.length === 0 && ending === "end") response.end();
  return groups.length;
}
