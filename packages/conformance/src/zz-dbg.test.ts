import { it } from "vitest";
import { request as httpRequest } from "node:http";
import { createAdapter } from "@conduit-ai/adapter-hono";
import { sleep } from "./harness.js";
it("dbg", async () => {
  const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1", logging: { enabled: false } });
  let saw = false;
  adapter.registerRoute({ method: "GET", path: "/hang", handler: (ctx) => new Promise((resolve) => ctx.abortSignal.addEventListener("abort", () => { saw = true; resolve("gone"); })) });
  await adapter.start();
  const req = httpRequest({ host: "127.0.0.1", port: adapter.address()!.port, path: "/api/hang", agent: false });
  req.on("error", () => undefined); req.end();
  await sleep(100); req.destroy();
  await sleep(300);
  console.log("saw", saw, "inflight", adapter.handler.inFlightCount, "conns", adapter.getActiveConnectionCount());
  const t = Date.now(); await adapter.stop(); console.log("stop ms", Date.now() - t);
});
