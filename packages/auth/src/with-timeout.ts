/** Raised when a validator outlives its budget. */
export class ValidatorTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`Credential validation timed out after ${timeoutMs} ms`);
    this.name = "ValidatorTimeoutError";
  }
}

/**
 * Settles with `work`, or rejects with `ValidatorTimeoutError` after `timeoutMs`.
 *
 * @example
 * await withTimeout(Promise.resolve(validate(token, ctx)), 5000);
 */
export function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ValidatorTimeoutError(timeoutMs)), timeoutMs);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
