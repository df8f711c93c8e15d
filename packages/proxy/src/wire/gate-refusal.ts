import { ErrorCategory, ErrorCode, ErrorSeverity, type GateRefusal, ServerAdapterError } from "@conduit-ai/server-core";

const CODE_BY_REASON: Record<GateRefusal["reason"], string> = {
  missing_key: ErrorCode.AUTH_REQUIRED,
  invalid_key: ErrorCode.AUTH_INVALID,
  invalid_key_record: ErrorCode.FORBIDDEN,
  model_not_allowed: ErrorCode.FORBIDDEN,
  model_unpriced: ErrorCode.FORBIDDEN,
  invalid_request: ErrorCode.VALIDATION_ERROR,
  rate_limited: ErrorCode.RATE_LIMIT_EXCEEDED,
  concurrency_timeout: ErrorCode.RATE_LIMIT_EXCEEDED,
  budget_exceeded: ErrorCode.RATE_LIMIT_EXCEEDED,
  store_unavailable: ErrorCode.STORE_UNAVAILABLE,
};

/** What the error writers read off a gate's refusal. */
export interface GateRefusalDetails {
  gateReason: GateRefusal["reason"];
  final: boolean;
}

/**
 * A gate's refusal as a server error, so the one error step writes it in the surface's shape
 * (status, `retry-after` when the gate names one, `x-should-retry: false` when it is final).
 *
 * @example
 * if ("refused" in decision) throw new GateRefusedError(decision);
 */
export class GateRefusedError extends ServerAdapterError {
  readonly refusal: GateRefusal;

  constructor(refusal: GateRefusal) {
    super(refusal.message, {
      code: CODE_BY_REASON[refusal.reason] ?? ErrorCode.FORBIDDEN,
      statusCode: refusal.status,
      category:
        refusal.status === 400
          ? ErrorCategory.VALIDATION
          : refusal.status === 401
            ? ErrorCategory.AUTHENTICATION
            : refusal.status === 403
              ? ErrorCategory.AUTHORIZATION
              : ErrorCategory.RATE_LIMIT,
      severity: ErrorSeverity.LOW,
      retryable: !refusal.final,
      ...(refusal.retryAfterSeconds !== undefined ? { retryAfterMs: refusal.retryAfterSeconds * 1000 } : {}),
      details: { gateReason: refusal.reason, final: refusal.final } satisfies GateRefusalDetails,
    });
    this.refusal = refusal;
  }
}

/** The refusal details of an error, when it is a gate's refusal (from any copy of this package). */
export function gateRefusalOf(error: ServerAdapterError): GateRefusalDetails | undefined {
  const details = error.details as Partial<GateRefusalDetails> | undefined;
  return typeof details?.gateReason === "string" ? (details as GateRefusalDetails) : undefined;
}
