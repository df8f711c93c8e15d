/**
 * `bench:gateway`: the published gateway benchmark (docs/benchmarks.md). Conduit beside the floor of
 * any Node proxy hop (a bare `node:http` pipe) and beside Portkey's open-source gateway (npm
 * `@portkey-ai/gateway`, from a scratch folder), in one run, against the same loopback vendor fakes:
 *
 * - latency: added p50/p99 and CPU per request at c=1, 16, 64, JSON and streamed, on `/v1/messages`
 *   and `/v1/chat/completions` (scenario-latency.ts);
 * - agent loop: 50 turns growing to ≈ 150 K tokens of body, a tool call per turn (scenario-agent-loop.ts);
 * - failover: the first target answers 429, the second serves (scenario-failover.ts);
 * - head-of-line: one stalled upstream answer among 200 fast calls (scenario-head-of-line.ts);
 * - key flood: 10 000 distinct virtual keys in a minute, on Redis (scenario-key-flood.ts, Conduit alone:
 *   Portkey's open build has no virtual keys).
 * Memory over 1 M requests and 10 000 streams: `bench:soak` and `bench:provider-streams` (tools/bench/README.md).
 *
 * Options: --scenarios latency,agent,failover,head-of-line,key-flood  --concurrency 1,16,64
 *          --requests 1500 --streamRequests 300 --rounds 3 --deltas 100 --keys 10000
 *          --portkey on|off  --csv <file>
 */
import { parseArgs } from "node:util";
import { type GatewayChild, startChild, stopChildren } from "./child-protocol.js";
import type { GatewayName, Ports } from "./gateway-targets.js";
import { portkeyEntry, PORTKEY_VERSION } from "./portkey-install.js";
import { writeCsv } from "./results.js";
import { agentLoop } from "./scenario-agent-loop.js";
import { failover } from "./scenario-failover.js";
import { headOfLine } from "./scenario-head-of-line.js";
import { keyFlood } from "./scenario-key-flood.js";
import { latencyCells } from "./scenario-latency.js";

const { values } = parseArgs({
  options: {
    scenarios: { type: "string", default: "latency,agent,failover,head-of-line,key-flood" },
    concurrency: { type: "string", default: "1,16,64" },
    requests: { type: "string", default: "1500" },
    streamRequests: { type: "string", default: "300" },
    rounds: { type: "string", default: "3" },
    deltas: { type: "string", default: "100" },
    keys: { type: "string", default: "10000" },
    portkey: { type: "string", default: "on" },
    csv: { type: "string" },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const scenarios = new Set(values.scenarios.split(",").map((name) => name.trim()));
const here = (file: string) => new URL(file, import.meta.url);

const upstream = await startChild("upstream", here("./gateway-upstream.ts"), [values.deltas]);
const anthropicUrl = `http://127.0.0.1:${upstream.ports.anthropic}`;
const openaiUrl = `http://127.0.0.1:${upstream.ports.openai}`;
const children: GatewayChild[] = [upstream];
try {
  const pipe = await startChild("pipe", here("./gateway-pipe.ts"), [anthropicUrl, openaiUrl]);
  const conduit = await startChild("conduit", here("./gateway-conduit.ts"), [anthropicUrl, "one"]);
  children.push(pipe, conduit);
  const entry = values.portkey === "off" ? undefined : portkeyEntry();
  const portkey = entry ? await startChild("portkey", here("./portkey-child.mjs"), [entry]) : undefined;
  if (portkey) children.push(portkey);
  const ports: Ports = {
    anthropic: upstream.ports.anthropic as number,
    openai: upstream.ports.openai as number,
    pipe: pipe.ports.http as number,
    conduit: conduit.ports.http as number,
    ...(portkey ? { portkey: portkey.ports.http as number } : {}),
  };
  const servers: Partial<Record<GatewayName, GatewayChild>> = { pipe, conduit, ...(portkey ? { portkey } : {}) };
  console.log(`Conduit vs a bare node:http pipe${portkey ? ` vs Portkey's gateway ${PORTKEY_VERSION}` : ""}, Node ${process.version}`);
  const rounds = Number(values.rounds);
  if (scenarios.has("latency")) {
    await latencyCells(ports, servers, {
      concurrencies: values.concurrency.split(",").map(Number),
      requests: Number(values.requests),
      streamRequests: Number(values.streamRequests),
      rounds,
    });
  }
  if (scenarios.has("agent")) await agentLoop(ports, servers, rounds);
  if (scenarios.has("failover")) {
    const conduitFailover = await startChild("conduit (failover)", here("./gateway-conduit.ts"), [anthropicUrl, "failover"]);
    children.push(conduitFailover);
    await failover(ports, conduit, conduitFailover, portkey, Number(values.requests));
  }
  if (scenarios.has("head-of-line")) await headOfLine(ports, upstream, servers, rounds);
  if (scenarios.has("key-flood")) await keyFlood(anthropicUrl, Number(values.keys));
} finally {
  stopChildren(children);
  // Written on failure too: the cells measured so far.
  if (values.csv) {
    writeCsv(values.csv);
    console.log(`\nraw figures: ${values.csv}`);
  }
}
