// The ok/FAIL bookkeeping of the client checks: each check runs, prints one line with what it
// measured, and a failure is recorded without stopping the next check.

/**
 * Creates a runner whose lines start with `label`.
 *
 * @example
 * const runner = createCheckRunner("sdk-clients");
 * await runner.check("generateText", async () => "1× POST /v1/messages → 200");
 * runner.finish(); // prints "sdk-clients: 1 passed, 0 failed", sets the exit code on failures
 */
export function createCheckRunner(label) {
  const results = [];
  const log = (message) => console.log(`${label}: ${message}`);
  return {
    log,
    /** Runs `body`; what it returns is printed after "ok", what it throws after "FAIL". */
    async check(name, body) {
      try {
        const figures = await body();
        results.push({ name, ok: true });
        log(`ok   ${name}${figures ? ` — ${figures}` : ""}`);
      } catch (error) {
        results.push({ name, ok: false });
        log(`FAIL ${name} — ${error.message}`);
      }
    },
    /** Records a failure outside a check (setup). */
    fail(name, error) {
      results.push({ name, ok: false });
      log(`FAIL ${name} — ${error.message}`);
    },
    finish() {
      const failed = results.filter((result) => !result.ok).length;
      log(`${results.length - failed} passed, ${failed} failed`);
      if (failed > 0) process.exitCode = 1;
    },
  };
}

/** Throws `message` unless `condition` holds. */
export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** "POST /v1/messages → 200" for each call a recording tap saw. */
export const callsOf = (exchanges) =>
  exchanges.map((call) => `${call.method} ${call.url}${call.upgrade ? " (upgrade)" : ""} → ${call.status}`);

/** "2× POST /v1/messages → 200, 1× HEAD / → 404": each distinct call with its count. */
export function summaryOf(exchanges) {
  const counts = new Map();
  for (const call of callsOf(exchanges)) counts.set(call, (counts.get(call) ?? 0) + 1);
  return [...counts].map(([call, count]) => `${count}× ${call}`).join(", ") || "none";
}
