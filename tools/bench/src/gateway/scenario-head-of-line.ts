// `bench:gateway` head-of-line: one request whose upstream answer starts and then stalls, among 200
// fast ones (c=50) on the same gateway and the same upstream account. The fast ones' p99 with the
// stalled request in flight, against a run without it, same gateway, same run.
import { request } from "node:http";
import type { GatewayChild } from "./child-protocol.js";
import { callFor, type GatewayName, type Ports, requestBody } from "./gateway-targets.js";
import { load } from "./http-load.js";
import { fmt, rows } from "./results.js";
import { percentile } from "../statistics.js";

/** Starts the stalled call; the returned function abandons it. */
function stalledCall(port: number, path: string, headers: Record<string, string>, body: string): () => void {
  const outgoing = request({ host: "127.0.0.1", port, path, method: "POST", headers: { "content-type": "application/json", ...headers } });
  outgoing.on("error", () => {});
  outgoing.end(body);
  return () => outgoing.destroy();
}

export async function headOfLine(
  ports: Ports,
  upstream: GatewayChild,
  servers: Partial<Record<GatewayName, GatewayChild>>,
  rounds: number,
) {
  const gateways = (["pipe", "conduit", "portkey"] as const).filter((name) => servers[name]);
  const body = requestBody(false);
  console.log(`\nhead-of-line: 200 fast calls (c=50) beside one stalled upstream answer, ${rounds} rounds`);
  console.log("  gateway   fast p99 alone  fast p99 beside the stall  ratio");
  for (const name of gateways) {
    const call = callFor(name, "messages", body, ports)!;
    const alone: number[] = [];
    const beside: number[] = [];
    await load(call, 50, 200);
    for (let round = 0; round < rounds; round++) {
      alone.push(...(await load(call, 50, 200)).latencies);
      upstream.child.send("hold");
      const abandon = stalledCall(call.port, call.path, call.headers, body);
      await new Promise((resolve) => setTimeout(resolve, 50));
      beside.push(...(await load(call, 50, 200)).latencies);
      abandon();
    }
    const p99 = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        99,
      );
    rows.push({
      scenario: "head-of-line",
      cell: "fast p99 beside a stalled stream",
      gateway: name,
      requests: beside.length,
      failed: "",
      p99Ms: p99(beside),
      note: `alone ${p99(alone).toFixed(3)} ms`,
    });
    console.log(
      `  ${name.padEnd(9)} ${fmt(p99(alone), " ms").padEnd(15)} ${fmt(p99(beside), " ms").padEnd(26)} ${(p99(beside) / p99(alone)).toFixed(2)}×`,
    );
  }
}
