/** A user mistake in flags or the config file: printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Thrown by a command that has already printed why it stops: `conduit` exits with `code` and prints nothing more. */
export class CommandExit extends Error {
  override readonly name = "CommandExit";
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
