import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { setTimeout as sleep } from "node:timers/promises";

/** Where and how batches are posted. `headers` are a collector's credentials: never logged. */
export interface OtlpTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string;
  /** `gzip` when the body is compressed (sent as `Content-Encoding`). */
  readonly contentEncoding?: "gzip";
  /** Per request (`OTEL_EXPORTER_OTLP_TIMEOUT`). */
  readonly requestTimeoutMs: number;
}

// The specification's retryable answers; anything else (400, 401, 413…) fails at once.
const RETRYABLE = new Set([429, 502, 503, 504]);
const MAX_ATTEMPTS = 5;
const FIRST_BACKOFF_MS = 100;

type Attempt = { status: number; retryAfter: string | undefined } | { error: string };

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

function postOnce(target: OtlpTarget, body: Uint8Array | string): Promise<Attempt> {
  const url = new URL(target.url);
  const secure = url.protocol === "https:";
  return new Promise((resolve) => {
    const request = (secure ? httpsRequest : httpRequest)(
      url,
      {
        method: "POST",
        agent: secure ? agents.https : agents.http,
        timeout: target.requestTimeoutMs,
        headers: {
          ...target.headers,
          "content-type": target.contentType,
          ...(target.contentEncoding ? { "content-encoding": target.contentEncoding } : {}),
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        response.resume();
        response.on("end", () => {
          const retryAfter = response.headers["retry-after"];
          resolve({ status: response.statusCode ?? 0, retryAfter });
        });
        response.on("error", (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.name }));
      },
    );
    request.on("timeout", () => request.destroy(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" })));
    request.on("error", (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.name }));
    request.end(body);
  });
}

/** Milliseconds a `Retry-After` (seconds or an HTTP date) asks to wait. */
function retryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Posts one export request, retrying 429/502/503/504 and network errors with exponential backoff
 * (or the `Retry-After` asked for) while `deadline` (a `Date.now()` value) allows. Resolves to
 * `undefined` when the collector took it, else to the kind of failure (no URL, no header).
 */
export async function postWithRetry(target: OtlpTarget, body: Uint8Array | string, deadline: number): Promise<string | undefined> {
  for (let attempt = 1; ; attempt++) {
    const result = await postOnce(target, body);
    if ("status" in result && result.status >= 200 && result.status < 300) return undefined;
    const failure = "status" in result ? `HTTP ${result.status}` : `network error ${result.error}`;
    if ("status" in result && !RETRYABLE.has(result.status)) return failure;
    if (attempt === MAX_ATTEMPTS) return `${failure} after ${MAX_ATTEMPTS} attempts`;
    const backoff = FIRST_BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + Math.random());
    const wait = ("status" in result ? retryAfterMs(result.retryAfter) : undefined) ?? backoff;
    if (Date.now() + wait >= deadline) return `${failure}, no time left to retry`;
    await sleep(wait);
  }
}
