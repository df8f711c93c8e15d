import { connect } from "node:net";

export interface RawExchange {
  /** 0 when the server sent nothing parseable before closing. */
  status: number;
  statusLine: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** True when the server closed the connection (FIN or reset) after its answer. */
  closed: boolean;
  /** A socket error seen while writing or reading (EPIPE, ECONNRESET), if any. */
  error?: string;
}

function parse(raw: Buffer, bodyless: boolean): Omit<RawExchange, "closed"> | undefined {
  const text = raw.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) return undefined;
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const body = raw.subarray(Buffer.byteLength(text.slice(0, end + 4), "latin1"));
  const length = headers["content-length"];
  if (!bodyless && length !== undefined && body.byteLength < Number(length)) return undefined;
  return { status: Number(statusLine.split(" ")[1] ?? 0), statusLine, headers, body: body.toString("utf8") };
}

/**
 * Sends raw bytes (optionally more after, chunk by chunk) and reads the answer: what no HTTP
 * client would send (broken request lines, smuggling attempts, `OPTIONS *`) and what clients
 * do under the hood (a large upload racing the server's answer). Resolves once a complete
 * answer arrived and, when `waitForClose`, the server closed the connection.
 *
 * @example
 * const answer = await rawExchange(port, "GARBAGE\r\n\r\n");
 */
export function rawExchange(
  port: number,
  head: string | Buffer,
  options: {
    body?: Iterable<Buffer>;
    waitForClose?: boolean;
    timeoutMs?: number /** A HEAD request: Content-Length announces no body. */;
    bodyless?: boolean;
  } = {},
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let closed = false;
    let settled = false;
    const finish = () => {
      if (settled) return;
      const parsed = parse(Buffer.concat(chunks), options.bodyless === true);
      if (!closed && (!parsed || options.waitForClose)) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...(parsed ?? { status: 0, statusLine: "", headers: {}, body: "" }), closed, ...(error ? { error } : {}) });
    };
    const timer = setTimeout(() => {
      closed = false;
      settled = true;
      socket.destroy();
      const parsed = parse(Buffer.concat(chunks), options.bodyless === true);
      resolve({ ...(parsed ?? { status: 0, statusLine: "", headers: {}, body: "" }), closed: false, error: error ?? "timeout" });
    }, options.timeoutMs ?? 10_000);
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      finish();
    });
    socket.on("error", (failure: NodeJS.ErrnoException) => {
      error ??= failure.code ?? failure.message;
    });
    socket.on("close", () => {
      closed = true;
      finish();
    });
    socket.on("connect", async () => {
      socket.write(head);
      for (const chunk of options.body ?? []) {
        if (socket.destroyed || settled) break;
        // Backpressure like a real client: wait for the kernel to take each chunk.
        if (!socket.write(chunk)) await new Promise((resolve) => socket.once("drain", resolve).once("close", resolve));
      }
    });
  });
}
