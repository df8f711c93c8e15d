import { type RuntimeCallContext, ServerAdapterError, type TraceSpan } from "@conduit-ai/server-core";
import type { TapOutcome } from "../relay/body-tap.js";
import type { ProxyReply } from "../relay/proxy-reply.js";
import type { MessageObject, MessagesStreamEvent } from "../wire/anthropic-messages/messages-answer.js";
import type { ChatRequest } from "../wire/openai-chat/chat-request-schema.js";
import type { InputItem, ResponsesRequest } from "../wire/openai-responses/responses-request-schema.js";
import type { RuntimeUsage } from "../wire/runtime/to-messages-answer.js";

/** How a request in another wire becomes the upstream's (the surface's options). */
export interface TranslationOptions {
  /** The output cap when the client sets none. */
  defaultMaxTokens: number;
  /** Leave out what the upstream cannot honour instead of a 400 naming it. */
  dropParams: boolean;
}

/** The client's request, parsed in its surface's own wire. */
export type SurfaceRequest =
  /** `/v1/messages`: the body as received (it goes upstream byte for byte when it can) and the model it names. */
  | { wire: "anthropic-messages"; request: { body: Uint8Array; model: string } }
  | { wire: "openai-chat"; request: ChatRequest; translation: TranslationOptions }
  /** `/v1/responses`: the request and the items of the stored response it continues. */
  | { wire: "openai-responses"; request: ResponsesRequest; history: InputItem[]; translation: TranslationOptions };

/**
 * What a target's upstream reported once an answer ended: the pool's answer with its status and
 * how its body ended (its usage read on the way), or a runtime provider's tokens (undefined when
 * it reported none: cut, failed). A surface settles its admission with it.
 */
export type TargetUsage =
  | { from: "pool"; status: number; outcome: TapOutcome }
  | { from: "runtime"; servedBy: string; model: string; usage: RuntimeUsage | undefined };

/** One call of a target: the client's request, and what the surface knows of the call. */
export type TargetCall = SurfaceRequest & {
  /** The model this target is asked for (the routing table's target; the request may name an alias). */
  model: string;
  signal: AbortSignal;
  /** Client headers passed upstream (`/v1/messages`: all of them; the others: `anthropic-beta` and the session header). */
  headers: Record<string, string>;
  /**
   * The caller's `x-conduit-cache-control: auto` on a translated surface: a Claude target marks
   * prompt-cache breakpoints on the system prompt and the tools (a passthrough keeps the client's own).
   */
  promptCache?: "auto";
  /** The client's query string (`?beta=true`), for a passthrough. */
  search?: string;
  /** The parent of the call's spans when tracing is on. */
  traceSpan?: TraceSpan;
  /** The runtime's call context (who calls, the request's span), made when needed. */
  context(): RuntimeCallContext;
  /**
   * A later target exists: a runtime stream is held back until its provider answered or failed,
   * so a 429/5xx is thrown (and the next target tried) before any byte reached the client.
   */
  hasFallback: boolean;
  /** Called once when the answer ended, with what its upstream reported. */
  onUsage?: (usage: TargetUsage) => void;
};

/**
 * A target's answer, named by what served it (`anthropic/<model>`, `<provider>/<model>`):
 * - `passthrough`: the client's own wire from upstream, byte for byte (the status may be an error);
 * - `message`: a whole answer, decoded, as a Messages API `message`;
 * - `events`: a stream decoded once into Messages events, in batches (one per upstream read),
 *   ending with `message_stop` or `error`; returning early cancels the upstream request.
 */
/** The response header naming the client's hosted tools a target could not run and left out. */
export const DROPPED_TOOLS_HEADER = "x-conduit-dropped-tools";

export type TargetAnswer = (
  | { kind: "passthrough"; reply: ProxyReply; servedBy: string }
  | { kind: "message"; message: MessageObject; servedBy: string }
  | { kind: "events"; events: AsyncIterable<MessagesStreamEvent[]>; servedBy: string }
) & {
  /** Hosted tool types (`web_search`, …) left out because this target cannot run them. */
  droppedTools?: readonly string[];
};

/**
 * Where a call goes: one upstream (the pool's Messages API, the runtime's providers, …). A
 * target translates the surface's request with the `wire/` converters, sends it, and answers in
 * the Messages API's vocabulary; a failure before any answer is thrown, its status kept, so the
 * routing table can try the next target.
 *
 * @example
 * const answer = await target.serve({ wire: "openai-chat", request, translation, model: "claude-haiku-4-5", signal, headers, context, hasFallback: false });
 */
export interface Target {
  serve(call: TargetCall): Promise<TargetAnswer>;
}

/** Why a target could not answer, in no client's shape: `/v1/messages` answers it as a server error, the OpenAI surfaces in theirs. */
/** How many model names an unknown-model error lists before pointing at `/v1/models`. */
const LISTED_MODELS = 20;

function availableNote(available: readonly string[]): string {
  if (available.length === 0) return "";
  const shown = available.slice(0, LISTED_MODELS).join(", ");
  return available.length > LISTED_MODELS
    ? ` Models here: ${shown}, … (${available.length} in all: GET /v1/models).`
    : ` Models here: ${shown}.`;
}

export type TargetFailureReason = "model_not_found" | "upstream_error" | "upstream_protocol_error" | "upstream_unreachable";

/**
 * A target's failure before any answer (a server error: its status decides whether the next
 * target is tried). `upstream` holds an upstream error answer as it came (status, the start of
 * its body, its headers) for a surface to translate; `model` the model no target serves.
 *
 * @example
 * throw TargetFailure.protocol("The upstream sent a malformed response");
 */
export class TargetFailure extends ServerAdapterError {
  readonly model: string | undefined;
  readonly upstream: { status: number; body: string; headers: ProxyReply["headers"] } | undefined;

  private constructor(
    readonly reason: TargetFailureReason,
    message: string,
    statusCode: number,
    code: string,
    details: { model?: string; upstream?: TargetFailure["upstream"]; cause?: unknown } = {},
  ) {
    super(message, { statusCode, code, ...(details.cause === undefined ? {} : { cause: details.cause }) });
    this.model = details.model;
    this.upstream = details.upstream;
  }

  /** A runtime target name no provider serves (`model_not_found`, 404), naming the models that exist. */
  static unknownModel(model: string, available: readonly string[] = []): TargetFailure {
    const message = `The model \`${model}\` does not exist or you do not have access to it.${availableNote(available)}`;
    return new TargetFailure("model_not_found", message, 404, "model_not_found", { model });
  }

  /** A runtime target name, and no runtime to serve it (`MODEL_NOT_FOUND`, 404). */
  static noRuntime(model: string): TargetFailure {
    return new TargetFailure("model_not_found", `model: ${model}`, 404, "MODEL_NOT_FOUND", { model });
  }

  /** Upstream answered an error (non-2xx): its status (a 502 when it is not an error status), body text and headers. */
  static upstreamError(status: number, body: string, headers: ProxyReply["headers"]): TargetFailure {
    const statusCode = status >= 400 && status <= 599 ? status : 502;
    return new TargetFailure("upstream_error", `Upstream error (status ${status})`, statusCode, "UPSTREAM_ERROR", {
      upstream: { status, body, headers },
    });
  }

  /** Upstream answered something that is not its wire (no stream for a streaming request, malformed JSON). */
  static protocol(message: string): TargetFailure {
    return new TargetFailure("upstream_protocol_error", message, 502, "upstream_protocol_error");
  }

  /** The request never got an answer (the relay threw: unreachable, the pool's store down, the client gone). */
  static unreachable(cause: unknown): TargetFailure {
    const statusCode = ServerAdapterError.isInstance(cause) ? cause.statusCode : 502;
    return new TargetFailure("upstream_unreachable", "The upstream Messages API could not be reached", statusCode, "upstream_unavailable", {
      cause,
    });
  }
}
