import type { DependencyHealth } from "../../contracts/runtime.js";

/** A readiness check: `undefined` leaves the dependency out of the report. */
export type DependencyCheck = () => Promise<DependencyHealth | undefined>;

/**
 * Runs every check at once; a check that throws reports its dependency as required and down
 * (fail closed: a broken check never reads as healthy).
 */
export async function runDependencyChecks(checks: Map<string, DependencyCheck>): Promise<Record<string, DependencyHealth>> {
  const entries = await Promise.all(
    [...checks].map(async ([name, check]) => {
      try {
        return [name, await check()] as const;
      } catch (error) {
        return [name, { status: "down", required: true, message: (error as Error).message } satisfies DependencyHealth] as const;
      }
    }),
  );
  return Object.fromEntries(entries.filter((entry): entry is readonly [string, DependencyHealth] => entry[1] !== undefined));
}
