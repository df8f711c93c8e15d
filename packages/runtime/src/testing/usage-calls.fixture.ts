/**
 * Test fixture (run as a child process by usage-ledger.test.ts): one runtime process making N
 * local generate calls, recorded in the Redis usage ledger (REDIS_URL, REDIS_KEY_PREFIX).
 */
import { createRuntime } from "../create-runtime.js";

const calls = Number(process.argv[2] ?? "1");
const runtime = createRuntime();
for (let index = 0; index < calls; index++) await runtime.generate({ input: { text: "call number one" } });
await runtime.close();
