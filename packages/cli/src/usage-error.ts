/** A user mistake in flags or the config file: printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
