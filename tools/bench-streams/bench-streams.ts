/**
 * Stream and WebSocket figures of one Conduit process (Hono adapter):
 *  - concurrent SSE streams held (keep-alive on) and RSS per stream;
 *  - events/s of one SSE stream vs. a bare `res.write` loop sending the same frames;
 *  - RSS per WebSocket connection for 1 000 connections.
 * The server runs the built packages, as users do (built through Nx first; `--source` runs
 * the TypeScript sources instead).
 * Run: pnpm --filter @conduit-ai/bench bench:streams [streams] [sockets] [--source]
 */
import { execFileSync, fork } from "node:child_process";
import { type ClientRequest, request } from "node:http";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../packages/websocket/package.json", import.meta.url));
const WebSocket = require("ws") as typeof import("ws").default;

const source = process.argv.includes("--source");
const [streamsArgument, socketsArgument] = process.argv.slice(2).filter((argument) => argument !== "--" && argument !== "--source");
const STREAMS = Number(streamsArgument ?? 5000);
const SOCKETS = Number(socketsArgument ?? 1000);
const EVENTS = 100_000;

if (!source) {
  const projects = ["@conduit-ai/server-core", "@conduit-ai/adapter-hono", "@conduit-ai/streaming", "@conduit-ai/websocket"];
  execFileSync("pnpm", ["exec", "nx", "run-many", "-t", "build", `--projects=${projects.join(",")}`, "--output-style=static"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}
const child = fork(new URL("./server.ts", import.meta.url), [], {
  execArgv: ["--import", "tsx", ...(source ? ["--conditions=@conduit-ai/source"] : []), "--expose-gc"],
});
type Reply = { ready?: boolean; port?: number; barePort?: number; rss?: number };
const replies: Array<(reply: Reply) => void> = [];
child.on("message", (reply: Reply) => replies.shift()?.(reply));
const nextReply = () => new Promise<Reply>((resolve) => replies.push(resolve));
const rss = async () => {
  const reply = nextReply();
  child.send("rss");
  return (await reply).rss ?? 0;
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const { port, barePort } = await nextReply();

// 1. WebSocket connections (first, on a fresh process).
const beforeSockets = await rss();
const sockets: InstanceType<typeof WebSocket>[] = [];
await Promise.all(
  Array.from({ length: SOCKETS }, () => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    sockets.push(socket);
    return new Promise<void>((resolve) => {
      socket.once("message", () => resolve());
      socket.once("error", () => resolve());
    });
  }),
);
const withSockets = await rss();
const connected = sockets.filter((socket) => socket.readyState === WebSocket.OPEN).length;
console.log(
  `WebSocket connections: ${connected}/${SOCKETS}; RSS ${mb(beforeSockets)} → ${mb(withSockets)}; per connection ${((withSockets - beforeSockets) / Math.max(connected, 1) / 1024).toFixed(1)} KB`,
);
for (const socket of sockets) socket.terminate();
await new Promise((resolve) => setTimeout(resolve, 1000));
const baseline = await rss();

// 2. Concurrent SSE streams.
const held: ClientRequest[] = [];
let open = 0;
await new Promise<void>((resolve) => {
  let pending = STREAMS;
  const batch = (from: number) => {
    for (let index = from; index < Math.min(from + 250, STREAMS); index++) {
      const outgoing = request({ host: "127.0.0.1", port, path: "/api/hold", agent: false }, (response) => {
        response.once("data", () => {
          open++;
          if (--pending === 0) resolve();
        });
      });
      outgoing.on("error", () => {
        if (--pending === 0) resolve();
      });
      outgoing.end();
      held.push(outgoing);
    }
    if (from + 250 < STREAMS) setTimeout(() => batch(from + 250), 50);
  };
  batch(0);
});
const withStreams = await rss();
console.log(
  `SSE streams held: ${open}/${STREAMS}; RSS ${mb(baseline)} → ${mb(withStreams)}; per stream ${((withStreams - baseline) / Math.max(open, 1) / 1024).toFixed(1)} KB`,
);
for (const outgoing of held) outgoing.destroy();
await new Promise((resolve) => setTimeout(resolve, 1000));

// 3. Events per second of one stream vs. a bare res.write loop.
async function eventsPerSecond(target: number, path: string): Promise<number> {
  const started = performance.now();
  let frames = 0;
  await new Promise<void>((resolve, reject) => {
    request({ host: "127.0.0.1", port: target, path, agent: false }, (response) => {
      let tail = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        const text = tail + chunk;
        const parts = text.split("\n\n");
        tail = parts.pop() ?? "";
        frames += parts.filter((part) => part.includes("text-delta")).length;
      });
      response.on("end", resolve);
      response.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
  return frames / ((performance.now() - started) / 1000);
}
const conduitRate = await eventsPerSecond(port ?? 0, `/api/burst?count=${EVENTS}`);
const generatorRate = await eventsPerSecond(port ?? 0, `/api/burst-generator?count=${EVENTS}`);
const bareRate = await eventsPerSecond(barePort ?? 0, `/?count=${EVENTS}`);
console.log(
  `One SSE stream: ${Math.round(conduitRate)} events/s (createStreamResponse), ${Math.round(generatorRate)} events/s (async generator) vs ${Math.round(bareRate)} events/s (bare res.write) = ${((conduitRate / bareRate) * 100).toFixed(0)}%`,
);

child.kill();
