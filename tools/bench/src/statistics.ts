/**
 * The median of a set of measurements (the mean of the two middle values for an even count):
 * what every bench quotes, because the machine is noisy.
 *
 * @example
 * median([3, 1, 2, 10]); // 2.5
 */
export function median(numbers: readonly number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The value below which `p` percent of a sorted sample falls (nearest rank, rounded down).
 *
 * @example
 * percentile([1, 2, 3, 4], 50); // 3
 */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
