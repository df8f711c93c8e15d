/**
 * `work`'s result, or "timeout" after `ms` (only the wait ends: `work` itself is not cancelled).
 * The timer is ref'd and cleared: a stop in progress keeps the process alive until it completes
 * (an unref'd one let a process with a request stuck in flight exit half-stopped, skipping
 * `runtime.close()`), and a finished wait leaves no timer behind.
 *
 * @example
 * if ((await within(runtime.close(), 5_000)) === "timeout") console.error("runtime did not close");
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), Math.max(0, ms));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
