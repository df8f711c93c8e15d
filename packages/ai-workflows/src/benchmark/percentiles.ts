/** Nearest-rank percentile of sorted values (what load tools such as autocannon report). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil(fraction * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

const round = (value: number) => Math.round(value * 100) / 100;

/** min, mean, p50, p95, p99, max of latencies in milliseconds (rounded to 0.01 ms). */
export function latencySummary(
  values: readonly number[],
): { min: number; mean: number; p50: number; p95: number; p99: number; max: number } | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return {
    min: round(sorted[0] as number),
    mean: round(mean),
    p50: round(percentile(sorted, 0.5)),
    p95: round(percentile(sorted, 0.95)),
    p99: round(percentile(sorted, 0.99)),
    max: round(sorted.at(-1) as number),
  };
}
