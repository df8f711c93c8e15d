/**
 * Drains once on SIGTERM or SIGINT (and on `alsoOn`, e.g. a cluster worker's "disconnect"): prints
 * "<signal> received, draining…", runs `drain`, prints `stopped` and exits 0; a `drain` that throws
 * exits 1 with "Shutdown failed: …". Signals that arrive while draining are ignored.
 */
export function drainOnSignals(options: { drain: () => Promise<void>; stopped: string; alsoOn?: string[] }): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal} received, draining…`);
    try {
      await options.drain();
      console.error(options.stopped);
      process.exit(0);
    } catch (error) {
      console.error(`Shutdown failed: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  for (const signal of ["SIGTERM", "SIGINT", ...(options.alsoOn ?? [])]) {
    process.on(signal, () => void shutdown(signal));
  }
}
