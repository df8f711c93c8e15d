/**
 * `bench:auth`: a protected route with JWT (RS256, JWKS cached) against the same route with
 * no auth, side by side in one run. A local identity server serves the JWKS (fetched once);
 * every request carries the same `Authorization: Bearer <RS256 JWT>` header in every mode, so
 * the bytes on the wire are identical. Rounds alternate none / jwt / jwt-verify / jwt-ambient
 * back to back (order reversed every other round); the reported ratios are the medians of the
 * per-round ratios (goal: jwt / none ≥ 0.8). jwt-verify turns the verified-token cache off
 * (RS256 on every request); jwt-ambient turns `ambientContext` on (AsyncLocalStorage).
 *
 * Options: --framework hono  --rounds 5  --duration 3  --connections 50
 */
import { type ChildProcess, fork } from "node:child_process";
import { parseArgs } from "node:util";
import { startIdentityServer } from "@conduit-ai/fakes";
import autocannon from "autocannon";
import { median } from "./statistics.js";

const GOAL = 0.8;
const { values } = parseArgs({
  options: {
    framework: { type: "string", default: "hono" },
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const rounds = Number(values.rounds);
const modes = ["none", "jwt", "jwt-verify", "jwt-ambient"] as const;
type Mode = (typeof modes)[number];

const idp = await startIdentityServer();
const token = await idp.sign({ sub: "bench-user", aud: "bench", roles: ["reader"] }, { expiresInSec: 3600 });

function startChild(mode: Mode): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(new URL("./auth-server.ts", import.meta.url), [mode, values.framework, idp.jwksUrl, idp.issuer], {
    execArgv: ["--conditions=@conduit-ai/source", "--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve({ child, url: `http://127.0.0.1:${message.port}/api/protected` }));
    child.once("exit", (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

async function measure(url: string, seconds: number): Promise<number> {
  const result = await autocannon({
    url,
    connections: Number(values.connections),
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return result.requests.average;
}

const servers = Object.fromEntries(await Promise.all(modes.map(async (mode) => [mode, await startChild(mode)] as const))) as Record<
  Mode,
  { child: ChildProcess; url: string }
>;
try {
  // Warm-up: JIT, the one JWKS fetch, the verified-token cache.
  for (const mode of modes) await measure(servers[mode].url, 1);
  const throughput: Record<Mode, number[]> = { none: [], jwt: [], "jwt-verify": [], "jwt-ambient": [] };
  const ratios: Record<Exclude<Mode, "none">, number[]> = { jwt: [], "jwt-verify": [], "jwt-ambient": [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? modes : ([...modes].reverse() as Mode[]);
    const figures = {} as Record<Mode, number>;
    for (const mode of order) figures[mode] = await measure(servers[mode].url, Number(values.duration));
    for (const mode of modes) throughput[mode].push(figures[mode]);
    for (const mode of ["jwt", "jwt-verify", "jwt-ambient"] as const) ratios[mode].push(figures[mode] / figures.none);
    console.log(`round ${round + 1}: ${modes.map((mode) => `${mode} ${figures[mode].toFixed(0)}`).join(", ")} req/s`);
  }
  const spread = (list: number[]) => `${Math.min(...list).toFixed(2)}–${Math.max(...list).toFixed(2)}`;
  const jwtRatio = median(ratios.jwt);
  console.log(
    `\nbench:auth (${values.framework}, ${rounds} rounds × ${values.duration}s, ${values.connections} connections, JWKS fetches: ${idp.totalJwksFetches()})`,
  );
  console.log(`  no auth        ${median(throughput.none).toFixed(0)} req/s`);
  console.log(
    `  jwt (default)  ${median(throughput.jwt).toFixed(0)} req/s   ratio ${jwtRatio.toFixed(2)} (rounds ${spread(ratios.jwt)})   goal ≥ ${GOAL}: ${jwtRatio >= GOAL ? "met" : "NOT met"}`,
  );
  console.log(
    `  jwt-verify     ${median(throughput["jwt-verify"]).toFixed(0)} req/s   ratio ${median(ratios["jwt-verify"]).toFixed(2)} (rounds ${spread(ratios["jwt-verify"])})   RS256 checked on every request`,
  );
  console.log(
    `  jwt-ambient    ${median(throughput["jwt-ambient"]).toFixed(0)} req/s   ratio ${median(ratios["jwt-ambient"]).toFixed(2)} (rounds ${spread(ratios["jwt-ambient"])})   with ambientContext (AsyncLocalStorage)`,
  );
} finally {
  for (const { child } of Object.values(servers)) child.kill();
  await idp.close();
}
