/** The logging surface the core needs; pino's logger satisfies it. */
export interface Logger {
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A dependency-free JSON-lines logger to stderr; the logging middleware replaces it with pino. */
export function createConsoleLogger(level: "debug" | "info" | "warn" | "error" | "silent" = "warn"): Logger {
  const ranks = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 } as const;
  const write = (name: keyof typeof ranks) => (object: object, message?: string) => {
    if (ranks[name] < ranks[level]) return;
    const { err, ...rest } = object as { err?: unknown };
    const error = err instanceof Error ? { type: err.name, message: err.message, stack: err.stack } : err;
    process.stderr.write(`${JSON.stringify({ level: name, time: Date.now(), msg: message, ...rest, ...(error ? { err: error } : {}) })}\n`);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}
