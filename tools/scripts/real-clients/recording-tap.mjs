// A transparent loopback relay between a real CLI and Conduit: forwards every request and answer
// byte for byte (streams chunk by chunk, WebSocket upgrades as raw sockets) and records what the
// client sent and what it got, with timings. This is how the checks see each call the CLI made.
import { createServer, request as httpRequest } from "node:http";
import { connect } from "node:net";

/**
 * Starts a tap in front of `target` (e.g. "http://127.0.0.1:4000").
 *
 * @example
 * const tap = await startRecordingTap("http://127.0.0.1:4000");
 * // client → tap.url → Conduit; tap.exchanges lists {method, url, status, requestBody, responseBody, ms, at}
 */
export async function startRecordingTap(target) {
  const { hostname, port } = new URL(target);
  const exchanges = [];
  const opened = performance.now();
  /** When a call started, in ms since the tap opened (a CLI run starts right after). */
  const sinceOpened = () => Math.round(performance.now() - opened);
  const server = createServer((incoming, outgoing) => {
    const started = performance.now();
    const requestChunks = [];
    const exchange = {
      method: incoming.method,
      url: incoming.url,
      requestHeaders: { ...incoming.headers },
      status: 0,
      ms: 0,
      at: sinceOpened(),
    };
    exchanges.push(exchange);
    const upstream = httpRequest(
      { host: hostname, port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        exchange.status = answer.statusCode;
        exchange.responseHeaders = { ...answer.headers };
        outgoing.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        const responseChunks = [];
        answer.on("data", (chunk) => {
          responseChunks.push(chunk);
          outgoing.write(chunk);
        });
        answer.on("end", () => {
          exchange.responseBody = Buffer.concat(responseChunks).toString("utf8");
          exchange.ms = Math.round(performance.now() - started);
          outgoing.end();
        });
      },
    );
    upstream.on("error", (error) => {
      exchange.status = 502;
      exchange.error = error.message;
      if (!outgoing.headersSent) outgoing.writeHead(502).end();
      else outgoing.destroy();
    });
    incoming.on("data", (chunk) => {
      requestChunks.push(chunk);
      upstream.write(chunk);
    });
    incoming.on("end", () => {
      exchange.requestBody = Buffer.concat(requestChunks).toString("utf8");
      upstream.end();
    });
  });
  // WebSocket (and any other) upgrades: replay the request head on a raw socket, then splice both ways.
  server.on("upgrade", (incoming, socket, head) => {
    const started = performance.now();
    const exchange = {
      method: incoming.method,
      url: incoming.url,
      requestHeaders: { ...incoming.headers },
      upgrade: true,
      status: 0,
      ms: 0,
      at: sinceOpened(),
    };
    exchanges.push(exchange);
    const upstream = connect(Number(port), hostname, () => {
      const lines = [`${incoming.method} ${incoming.url} HTTP/1.1`];
      for (let index = 0; index < incoming.rawHeaders.length; index += 2)
        lines.push(`${incoming.rawHeaders[index]}: ${incoming.rawHeaders[index + 1]}`);
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.once("data", (chunk) => {
      exchange.status = Number(/^HTTP\/1\.1 (\d+)/.exec(chunk.toString("latin1"))?.[1] ?? 0);
      exchange.ms = Math.round(performance.now() - started);
    });
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    upstream.on("error", end);
    socket.on("error", end);
    upstream.on("close", end);
    socket.on("close", end);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    exchanges,
    /** ms since the tap opened, the clock of each exchange's `at`. */
    elapsed: sinceOpened,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
