import type { RuntimeRedis } from "../redis-client.js";
import type { UsageLedgerOptions } from "./memory-usage-ledger.js";
import type { UsageLedger } from "./usage-ledger.js";

/** `createRuntime({ usage })`: where the usage ledger lives and how calls are priced. */
export interface RuntimeUsageOptions extends UsageLedgerOptions {
  /** Redis URL or client for the ledger; default the runtime's `redis` option, then `REDIS_URL`. */
  redis?: string | RuntimeRedis;
  /** Key prefix in Redis; default `${REDIS_KEY_PREFIX}usage:` or `conduit:usage:`. */
  keyPrefix?: string;
  /** A ledger of your own (wins over everything else). */
  ledger?: UsageLedger;
}
