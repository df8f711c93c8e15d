/** Waits `baseMs × 2^retry` with jitter; rejects when the client leaves meanwhile. */
export function backoff(baseMs: number, retry: number, signal: AbortSignal): Promise<void> {
  const delay = baseMs * 2 ** retry * (0.5 + Math.random() / 2);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, delay);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
