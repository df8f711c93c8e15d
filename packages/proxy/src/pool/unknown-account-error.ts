import { ErrorCategory, ErrorSeverity, ServerAdapterError } from "@conduit-ai/server-core";

/**
 * An account id the pool was not configured with (disable, enable): a 404, so an operator's typo
 * is answered as one instead of a 200 that changed nothing — and no state is written for it.
 *
 * @example
 * await pool.disable("claude-2", "operator"); // throws UnknownAccountError when no account has that id
 */
export class UnknownAccountError extends ServerAdapterError {
  readonly accountId: string;

  constructor(accountId: string) {
    super(`No account "${accountId}" in the proxy's pool`, {
      code: "ACCOUNT_NOT_FOUND",
      statusCode: 404,
      category: ErrorCategory.VALIDATION,
      severity: ErrorSeverity.LOW,
      details: { accountId },
    });
    this.accountId = accountId;
  }
}
