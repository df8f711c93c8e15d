import { ErrorCategory } from "./codes.js";

export type RecoveryAction = "retry" | "exponentialBackoff" | "circuitBreak" | "fail";

export interface RecoveryStrategy {
  action: RecoveryAction;
  maxRetries: number;
  baseDelayMs: number;
}

/**
 * What a client (or the runtime) should do after an error of each category.
 * Rate limits back off exponentially, external failures trip a circuit breaker,
 * transient execution/streaming/socket failures retry briefly, the rest fail fast.
 */
export const recoveryStrategies: Readonly<Record<ErrorCategory, RecoveryStrategy>> = Object.freeze({
  [ErrorCategory.CONFIG]: { action: "fail", maxRetries: 0, baseDelayMs: 0 },
  [ErrorCategory.VALIDATION]: { action: "fail", maxRetries: 0, baseDelayMs: 0 },
  [ErrorCategory.AUTHENTICATION]: { action: "fail", maxRetries: 0, baseDelayMs: 0 },
  [ErrorCategory.AUTHORIZATION]: { action: "fail", maxRetries: 0, baseDelayMs: 0 },
  [ErrorCategory.EXECUTION]: { action: "retry", maxRetries: 2, baseDelayMs: 250 },
  [ErrorCategory.STREAMING]: { action: "retry", maxRetries: 1, baseDelayMs: 500 },
  [ErrorCategory.WEBSOCKET]: { action: "exponentialBackoff", maxRetries: 5, baseDelayMs: 1000 },
  [ErrorCategory.RATE_LIMIT]: { action: "exponentialBackoff", maxRetries: 3, baseDelayMs: 1000 },
  [ErrorCategory.EXTERNAL]: { action: "circuitBreak", maxRetries: 3, baseDelayMs: 1000 },
});

/** The recovery strategy for a category. */
export function getRecoveryStrategy(category: ErrorCategory): RecoveryStrategy {
  return recoveryStrategies[category];
}
