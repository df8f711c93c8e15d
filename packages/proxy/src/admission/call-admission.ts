import { type RawResponse, ServerAdapterError, type ServerContext, ServerValidationError } from "@conduit-ai/server-core";
import type { AdmissionRequest, Admitted, ClientAdmission } from "./client-admission.js";
import { estimateOf, gatedBodyProblem } from "./request-estimate.js";
import { reservationOutcome } from "./settlement.js";

/** An admission refusal on its way past the route's own error conversion, to the group's error writer. */
class PassThrough {
  constructor(readonly error: ServerAdapterError) {}
}

export interface CallAdmissionOptions {
  /** The proxy's admission (client keys or its gate, then the per-credential limit). */
  admission?: ClientAdmission | undefined;
  /** Without an admission: who may call at all. */
  isClientAllowed: (ctx: ServerContext) => boolean;
  /** The surface's own 401 for a caller `isClientAllowed` refuses. */
  unauthorized: (ctx: ServerContext) => Error;
  /** The surface's own 400 naming a field (a gated body the gate must not count); default a `ServerValidationError`. */
  invalidRequest?: (message: string, field: string) => Error;
}

/** What `admit` knows of a call besides its parsed body. */
export interface CallFacts {
  /** The body as received: its size is the input estimate, and a repeated top-level key is refused. */
  text: string;
  /** What an alias may reach (its target and fallbacks): the reservation is priced at the dearest. */
  models?: readonly string[];
}

/**
 * One call's admission on a surface that answers errors itself (the OpenAI-compatible routes):
 * the precheck before the body is read, the client check, the gate's estimate and admission,
 * and — however the call fails — the settlement: a client gone before the answer keeps the
 * reservation (the call may have reached upstream), anything else releases it. Admission
 * refusals leave through the route group's error writer, in the surface's shape.
 *
 * @example
 * const call = CallAdmission.start(ctx, { admission, isClientAllowed, unauthorized });
 * try {
 *   call.checkClient();
 *   const admitted = await call.admit("openai", body, request.model, { text });
 *   ...
 * } catch (error) {
 *   return call.failed(error, (failure) => fromRuntimeError(failure).toResponse());
 * }
 */
export class CallAdmission {
  private admitted: Admitted | undefined;
  private estimate: AdmissionRequest | undefined;

  private constructor(
    private readonly ctx: ServerContext,
    private readonly options: CallAdmissionOptions,
  ) {}

  /** Runs the precheck (a 401 before the body is read), thrown for the group's error writer. */
  static start(ctx: ServerContext, options: CallAdmissionOptions): CallAdmission {
    options.admission?.precheck(ctx);
    return new CallAdmission(ctx, options);
  }

  /** Without an admission, the client check: the surface's 401. */
  checkClient(): void {
    if (!this.options.admission && !this.options.isClientAllowed(this.ctx)) throw this.options.unauthorized(this.ctx);
  }

  /** True when a gate settles usage (answers report theirs). */
  get gated(): boolean {
    return this.options.admission?.gated === true;
  }

  /** The estimate the call was admitted with (the gate's reservation). */
  get request(): AdmissionRequest | undefined {
    return this.estimate;
  }

  /**
   * Admits the call with an estimate of `body` (read only with a gate); undefined without an
   * admission. A gated body that repeats a top-level key or asks for more than 10^7 output
   * tokens is the surface's 400 naming the field.
   */
  async admit(surface: "openai", body: Record<string, unknown>, model: string, facts: CallFacts): Promise<Admitted | undefined> {
    const admission = this.options.admission;
    if (admission?.gated) {
      const problem = gatedBodyProblem(facts.text, body);
      if (problem) {
        const invalid = this.options.invalidRequest;
        throw invalid
          ? invalid(problem.message, problem.field)
          : new ServerValidationError(problem.message, [{ field: problem.field, message: problem.message }]);
      }
    }
    this.estimate = admission?.gated
      ? {
          ...estimateOf(surface, Buffer.byteLength(facts.text), body),
          model,
          ...(facts.models && facts.models.length > 0 ? { models: facts.models } : {}),
        }
      : { surface, estimatedInputTokens: 0 };
    if (!admission) return undefined;
    try {
      this.admitted = await admission.admit(this.ctx, this.estimate);
    } catch (error) {
      throw ServerAdapterError.isInstance(error) ? new PassThrough(error) : error;
    }
    return this.admitted;
  }

  /**
   * A failed call: admission refusals are rethrown for the group's error writer; otherwise the
   * admission is settled (client gone: the reservation stands) or released, and `answer` shapes the error.
   */
  failed(error: unknown, answer: (error: unknown) => RawResponse): RawResponse {
    if (error instanceof PassThrough) throw error.error;
    const { admitted, estimate } = this;
    if (admitted && estimate && this.ctx.abortSignal.aborted)
      admitted.settleAtReservation(reservationOutcome({ vendor: "proxy", model: estimate.model }, 499, 0));
    else admitted?.release();
    return answer(error);
  }
}
