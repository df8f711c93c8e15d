import type { Logger } from "@conduit-ai/server-core";
import { FAIL_FAST_REDIS_OPTIONS } from "@conduit-ai/server-core/middleware";
import type { Redis } from "ioredis";

/** How long the assembly waits for Redis at boot before starting anyway (readiness says down meanwhile). */
const BOOT_WAIT_MS = 3_000;

/**
 * The one Redis client of an assembled server (`REDIS_URL`), shared by the rate limiter and
 * conversation memory. Fail-fast options (see `FAIL_FAST_REDIS_OPTIONS`): while Redis is down
 * requests answer 503 `STORE_UNAVAILABLE` at once instead of queueing, and ioredis keeps
 * reconnecting so everything recovers when Redis returns. ioredis is loaded only when used.
 */
export async function connectRedis(url: string, logger: Pick<Logger, "warn">): Promise<Redis> {
  const { Redis } = await import("ioredis");
  const client = new Redis(url, { ...FAIL_FAST_REDIS_OPTIONS });
  let lastWarning = 0;
  // ioredis emits "error" on every failed reconnect; unhandled it would end the process.
  client.on("error", (error: Error) => {
    if (Date.now() - lastWarning < 10_000) return;
    lastWarning = Date.now();
    logger.warn({ err: { message: error.message } }, "redis unavailable; reconnecting");
  });
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), BOOT_WAIT_MS);
    client.once("ready", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!ready) logger.warn({ url: redactUrl(url) }, "redis not reachable at start; serving with stores unavailable until it is");
  return client;
}

/** A Redis URL without its password, for logs. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(invalid url)";
  }
}
