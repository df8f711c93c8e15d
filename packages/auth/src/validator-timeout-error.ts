/** Raised when a validator outlives its budget (the auth middleware's deadline queue rejects with it). */
export class ValidatorTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`Credential validation timed out after ${timeoutMs} ms`);
    this.name = "ValidatorTimeoutError";
  }
}
