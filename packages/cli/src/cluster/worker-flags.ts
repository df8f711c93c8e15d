import { availableParallelism } from "node:os";
import { UsageError } from "../usage-error.js";

/** The flags of `conduit serve` that belong to the process supervisor, not to the server. */
export interface WorkerFlags {
  /** Worker processes to run on one port; undefined = serve in this process (no cluster). */
  workers: number | undefined;
  /** Run several workers without Redis, each with its own state (limits, sessions, memory…). */
  allowPerWorkerState: boolean;
  /** The arguments left for the server's own parser. */
  rest: string[];
}

const MAX_WORKERS = 256;

/**
 * Takes `--workers N|auto` (also `--workers=N`) and `--allow-per-worker-state` out of `argv`.
 * `auto` is `os.availableParallelism()`.
 *
 * @example
 * takeWorkerFlags(["--workers", "2", "--port", "0"]); // { workers: 2, allowPerWorkerState: false, rest: ["--port", "0"] }
 */
export function takeWorkerFlags(argv: string[]): WorkerFlags {
  const rest: string[] = [];
  let workers: string | undefined;
  let allowPerWorkerState = false;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    if (argument === "--allow-per-worker-state") allowPerWorkerState = true;
    else if (argument.startsWith("--workers=")) workers = argument.slice("--workers=".length);
    else if (argument === "--workers") {
      workers = argv[index + 1];
      if (workers === undefined || workers.startsWith("-"))
        throw new UsageError("Option --workers needs a value: a number of processes or auto");
      index++;
    } else rest.push(argument);
  }
  return { workers: workers === undefined ? undefined : parseWorkerCount(workers), allowPerWorkerState, rest };
}

function parseWorkerCount(value: string): number {
  if (value === "auto") return availableParallelism();
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_WORKERS) {
    throw new UsageError(`Invalid --workers "${value}": expected an integer 1-${MAX_WORKERS} or auto`);
  }
  return Number(value);
}
