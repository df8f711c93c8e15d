import type { ErrorCategory, ErrorCode, ErrorSeverity } from "./codes.js";
import type { ServerErrorOptions } from "./server-adapter-error.js";

/** What a caller may still pass to a preset subclass (status and category are the class's own). */
export type PresetOptions = Omit<ServerErrorOptions, "statusCode" | "category">;

/** Fixes status, category, code, severity and retryability of a subclass; callers may still pass details, cause etc. */
export function preset(
  statusCode: number,
  category: ErrorCategory,
  code: ErrorCode,
  severity: ErrorSeverity,
  retryable: boolean,
  options: PresetOptions,
): ServerErrorOptions {
  return { code, severity, retryable, ...options, statusCode, category };
}
