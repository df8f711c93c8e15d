/**
 * What `bench:stack` verifies about a server before measuring it: 200 with the key and 401
 * without, the response header names it sends, the log lines (and bytes) one request writes,
 * and whether any log line carries a secret: the API key, or the bearer token of an
 * `Authorization` header the checked request also sends (no side uses it). `compareSides` turns two sides' findings into
 * a failure when they do not do the same work.
 */
import { API_KEY } from "./stack-ecosystem.js";

/** The server answering under test: its URL and everything it wrote to stdout so far. */
export interface CheckedServer {
  url: string;
  output: () => string;
}

export interface Findings {
  status: number;
  refusedStatus: number;
  /** Response header names of the 200 answer, sorted (`date`, `connection`… included: both sides' Node adds them). */
  headerNames: string[];
  linesPerRequest: number;
  bytesPerRequest: number;
  /** True when a log line (of either request) contains the API key or the bearer token. */
  secretLogged: boolean;
}

const BEARER_TOKEN = "bench-bearer-token-9876543210";
const HEADERS = { "x-api-key": API_KEY, authorization: `Bearer ${BEARER_TOKEN}`, origin: "https://app.example" };
/** Longer than Conduit's buffered destination waits (100 ms) before it writes. */
const FLUSH_WAIT_MS = 300;
const wait = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

export async function inspect(server: CheckedServer): Promise<Findings> {
  const response = await fetch(server.url, { headers: HEADERS });
  await response.text();
  await wait(FLUSH_WAIT_MS);
  const logged = server.output();
  const refused = await fetch(server.url, { headers: { origin: HEADERS.origin } });
  await refused.text();
  await wait(FLUSH_WAIT_MS);
  return {
    status: response.status,
    refusedStatus: refused.status,
    headerNames: [...response.headers.keys()].sort(),
    linesPerRequest: logged.split("\n").filter((line) => line !== "").length,
    bytesPerRequest: Buffer.byteLength(logged),
    secretLogged: [API_KEY, BEARER_TOKEN].some((secret) => server.output().includes(secret)),
  };
}

/** The stack's headers, whatever their names on the ecosystem's defaults (draft `RateLimit-*`, `Server-Timing` alone…). */
export function missingParts(findings: Findings): string[] {
  const has = (...names: string[]) => names.some((name) => findings.headerNames.includes(name));
  return [
    ["request id", has("x-request-id")],
    ["timing", has("x-response-time", "server-timing")],
    ["rate limit", has("x-ratelimit-limit", "ratelimit-limit", "ratelimit")],
    ["cors", has("access-control-allow-origin")],
    ["security", has("x-content-type-options")],
  ].flatMap(([name, present]) => (present ? [] : [name as string]));
}

/**
 * Problems that make a server unfit to measure. Given Conduit's findings (same-work mode), it
 * must also send the same header names, write as many lines per request, and never log a secret.
 */
export function problems(findings: Findings, conduit: Findings | undefined): string[] {
  const found: string[] = [];
  if (findings.status !== 200 || findings.refusedStatus !== 401)
    found.push(`${findings.status} with the key and ${findings.refusedStatus} without (200 and 401 expected)`);
  const missing = missingParts(findings);
  if (missing.length > 0) found.push(`missing ${missing.join(", ")}`);
  if (conduit === undefined) return found;
  if (findings.secretLogged) found.push("a log line contains a secret (API key or bearer token)");
  const onlyConduit = conduit.headerNames.filter((name) => !findings.headerNames.includes(name));
  const onlyOther = findings.headerNames.filter((name) => !conduit.headerNames.includes(name));
  if (onlyConduit.length > 0 || onlyOther.length > 0)
    found.push(
      `response headers differ: only Conduit sends [${onlyConduit.join(", ")}], only the ecosystem sends [${onlyOther.join(", ")}]`,
    );
  if (findings.linesPerRequest !== conduit.linesPerRequest)
    found.push(`${findings.linesPerRequest} log lines per request against Conduit's ${conduit.linesPerRequest}`);
  return found;
}
