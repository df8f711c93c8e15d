// `bench:gateway` failover: the first target answers 429 (`retry-after: 0`), the second serves. Conduit:
// two accounts, the rate-limited one first (fill-first); Portkey: a fallback config over the same two
// keys on 429. Each against itself without the failing target, same run: added p50 and CPU per request.
import { childCpu, type GatewayChild } from "./child-protocol.js";
import { type Ports, portkeyHeaders, requestBody } from "./gateway-targets.js";
import { type Call, describeFailures, load } from "./http-load.js";
import { fmt, rows } from "./results.js";
import { percentile } from "../statistics.js";

interface Contender {
  name: string;
  server: GatewayChild;
  plain: Call;
  failover: Call;
}

export async function failover(
  ports: Ports,
  conduit: GatewayChild,
  conduitFailover: GatewayChild,
  portkey: GatewayChild | undefined,
  requests: number,
) {
  const body = requestBody(false);
  const clientKey = { "x-api-key": "bench-client-key-0123456789", "anthropic-version": "2023-06-01" };
  const customHost = `http://127.0.0.1:${ports.anthropic}/v1`;
  const target = (apiKey: string) => ({ provider: "anthropic", api_key: apiKey, custom_host: customHost });
  const portkeyConfig = { strategy: { mode: "fallback", on_status_codes: [429] }, targets: [target("sk-limited"), target("sk-bench")] };
  const contenders: Contender[] = [
    {
      name: "conduit",
      server: conduit,
      plain: { port: conduit.ports.http as number, path: "/v1/messages", headers: clientKey, body },
      failover: { port: conduitFailover.ports.http as number, path: "/v1/messages", headers: clientKey, body },
    },
  ];
  if (portkey) {
    const port = portkey.ports.http as number;
    contenders.push({
      name: "portkey",
      server: portkey,
      plain: { port, path: "/v1/messages", headers: portkeyHeaders(ports), body },
      failover: { port, path: "/v1/messages", headers: portkeyHeaders(ports, portkeyConfig), body },
    });
  }
  console.log(`\nfailover: the first target answers 429 (retry-after: 0), the second serves (${requests} requests each, c=1)`);
  console.log("  gateway   plain p50  failover p50  added     CPU plain  CPU failover  failed");
  for (const contender of contenders) {
    const cpuOf = async (server: GatewayChild, call: Call) => {
      await load(call, 1, 100);
      const before = await childCpu(server);
      const result = await load(call, 1, requests);
      return { result, cpu: ((await childCpu(server)) - before) / requests };
    };
    const plain = await cpuOf(contender.server, contender.plain);
    const failing = await cpuOf(contender.name === "conduit" ? conduitFailover : contender.server, contender.failover);
    const p50 = (values: number[]) =>
      values.length
        ? percentile(
            [...values].sort((a, b) => a - b),
            50,
          )
        : Number.NaN;
    const failures = describeFailures(failing.result.failures);
    const added = p50(failing.result.latencies) - p50(plain.result.latencies);
    rows.push({
      scenario: "failover",
      cell: "429 then serve",
      gateway: contender.name,
      requests,
      failed: failures,
      p50Ms: p50(failing.result.latencies),
      addedP50Ms: added,
      cpuUsPerRequest: failing.cpu,
      note: `plain CPU ${plain.cpu.toFixed(0)} µs`,
    });
    console.log(
      `  ${contender.name.padEnd(9)} ${fmt(p50(plain.result.latencies), " ms").padEnd(10)} ${fmt(p50(failing.result.latencies), " ms").padEnd(13)} ${fmt(added, " ms").padEnd(9)} ${`${plain.cpu.toFixed(0)} µs`.padEnd(10)} ${`${failing.cpu.toFixed(0)} µs`.padEnd(13)} ${failures}`,
    );
  }
}
